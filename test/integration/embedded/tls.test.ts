/**
 * TLS end to end on our name server and broker: producers and push consumers with TLS (the test
 * certificate, so `rejectUnauthorized: false`)
 * against enforcing and permissive servers (main and VIP ports), plaintext refused where it must be,
 * and the tls.* keys of broker.conf / namesrv.conf reaching `rmq start` and `rmq namesrv`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startNamesrvFromArgs } from '../../../src/cli/namesrv-command.js';
import { startFromArgs } from '../../../src/cli/start-command.js';
import { createLogger } from '../../../src/common/logger.js';
import { decodeClusterInfo } from '../../../src/common/protocol/route.js';
import { startStandalone } from '../../../src/embedded/standalone.js';
import {
  type ClientOptions,
  createProducer,
  createPushConsumer,
  type Embedded,
  type MessageExt,
  type Producer,
  type PushConsumer,
  SendStatus,
  startEmbedded,
} from '../../../src/index.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient, tlsClientSettings } from '../../../src/remoting/transport/index.js';

const LIMIT = { timeout: 60_000 };
const quiet = createLogger('test', { level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'rmq-tls-embedded-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let seq = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++seq}`;

function producerOf(embedded: Embedded, options: Partial<ClientOptions> = {}): Producer {
  return createProducer({
    producerGroup: unique('pg'),
    namesrvAddr: embedded.namesrvAddr,
    logger: quiet,
    sendMsgTimeout: 5000,
    ...options,
  });
}

/** Sends `count` messages with `producer`, then consumes them all with a TLS push consumer. */
async function sendAndConsume(embedded: Embedded, producer: Producer, count: number): Promise<void> {
  const topic = unique('TlsTopic');
  await producer.start();
  const sent = new Set<string>();
  try {
    for (let i = 0; i < count; i++) {
      const result = await producer.send({ topic, body: Buffer.from(`tls-${i}`) });
      assert.equal(result.sendStatus, SendStatus.SEND_OK);
      sent.add(`tls-${i}`);
    }
  } finally {
    await producer.shutdown();
  }
  const consumer: PushConsumer = createPushConsumer({
    consumerGroup: unique('cg'),
    namesrvAddr: embedded.namesrvAddr,
    clientIP: '127.0.0.1',
    instanceName: unique('inst'),
    logger: quiet,
    tls: { rejectUnauthorized: false },
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    rebalanceWaitInterval: 1000,
    pollNameServerInterval: 1000,
    heartbeatBrokerInterval: 1000,
  });
  const received = new Set<string>();
  let allReceived: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allReceived = resolve;
  });
  consumer.subscribe(topic, '*');
  consumer.registerMessageListener({
    type: 'concurrently',
    consumeMessage: async (msgs: MessageExt[]) => {
      for (const m of msgs) received.add(m.body?.toString() ?? '');
      if (received.size === sent.size) allReceived();
      return 'CONSUME_SUCCESS';
    },
  });
  await consumer.start();
  try {
    await done;
    assert.deepEqual([...received].sort(), [...sent].sort());
  } finally {
    await consumer.shutdown();
  }
}

test('enforcing: TLS producer and push consumer work, a plaintext producer is refused', LIMIT, async () => {
  const embedded = await startEmbedded({ tls: { tlsMode: 'enforcing' }, logger: quiet });
  try {
    await sendAndConsume(embedded, producerOf(embedded, { tls: { rejectUnauthorized: false } }), 5);
    const plain = producerOf(embedded, { mqClientApiTimeout: 1000 });
    await plain.start();
    try {
      await assert.rejects(plain.send({ topic: unique('Refused'), body: Buffer.from('x') }));
    } finally {
      await plain.shutdown();
    }
  } finally {
    await embedded.close();
  }
});

test('permissive (the default): TLS and plaintext clients on the same ports', LIMIT, async () => {
  const embedded = await startEmbedded({ logger: quiet });
  try {
    await sendAndConsume(embedded, producerOf(embedded, { tls: { rejectUnauthorized: false } }), 3);
    await sendAndConsume(embedded, producerOf(embedded), 3);
  } finally {
    await embedded.close();
  }
});

test('enforcing covers the VIP channel (listenPort - 2) too', LIMIT, async () => {
  const pair = await startStandalone({
    dataDir: join(dir, 'vip'),
    namesrvPort: 0,
    host: '127.0.0.1',
    broker: { listenPort: 0, brokerIP1: '127.0.0.1' },
    tls: { tlsMode: 'enforcing' },
    logger: quiet,
  });
  const tls = new RemotingClient(
    { tls: tlsClientSettings({ rejectUnauthorized: false }) },
    { logger: quiet },
  );
  const plain = new RemotingClient({}, { logger: quiet });
  try {
    const vip = pair.broker.vipAddress?.address ?? '';
    const request = () => createRequest(RequestCode.GET_BROKER_RUNTIME_INFO);
    assert.equal((await tls.invoke(vip, request(), { timeoutMs: 5000 })).code, ResponseCode.SUCCESS);
    await assert.rejects(plain.invoke(vip, request(), { timeoutMs: 5000 }));
  } finally {
    await tls.close();
    await plain.close();
    await pair.close();
  }
});

async function clusterInfo(client: RemotingClient, namesrvAddr: string): Promise<string[]> {
  const reply = await client.invoke(namesrvAddr, createRequest(RequestCode.GET_BROKER_CLUSTER_INFO), {
    timeoutMs: 5000,
  });
  assert.equal(reply.code, ResponseCode.SUCCESS);
  return [...decodeClusterInfo(reply.body).brokerAddrTable.keys()];
}

test(
  'rmq start -c broker.conf: tls.server.mode=enforcing for both, the broker registers over TLS',
  LIMIT,
  async () => {
    const conf = join(dir, 'broker.conf');
    writeFileSync(
      conf,
      'brokerName=broker-tls\nbrokerIP1=127.0.0.1\ntls.server.mode=enforcing\ntls.enable=true\ntls.server.keyPassword=unused\n',
    );
    const output: string[] = [];
    const pair = await startFromArgs(
      [
        '-c',
        conf,
        '-d',
        join(dir, 'start-data'),
        '--namesrv-port',
        '0',
        '--broker-port',
        '0',
        '--host',
        '127.0.0.1',
        '--dashboard-port',
        '0',
      ],
      { out: (text: string) => output.push(text), err: () => {} },
    );
    const tls = new RemotingClient(
      { tls: tlsClientSettings({ rejectUnauthorized: false }) },
      { logger: quiet },
    );
    const plain = new RemotingClient({}, { logger: quiet });
    try {
      assert.deepEqual(await clusterInfo(tls, pair.namesrvAddr), ['broker-tls']);
      await assert.rejects(clusterInfo(plain, pair.namesrvAddr));
      await assert.rejects(clusterInfo(plain, pair.brokerAddr));
    } finally {
      await tls.close();
      await plain.close();
      await pair.close();
    }
  },
);

test('rmq namesrv -c namesrv.conf: tls keys are read, a bad one is refused', LIMIT, async () => {
  const conf = join(dir, 'namesrv.conf');
  writeFileSync(conf, `listenPort=0\nkvConfigPath=${join(dir, 'kv.json')}\ntls.server.mode=disabled\n`);
  const namesrv = await startNamesrvFromArgs(['-c', conf, '--host', '127.0.0.1'], {
    out: () => {},
    err: () => {},
  });
  const address = namesrv.address?.address ?? '';
  const tls = new RemotingClient(
    { tls: tlsClientSettings({ rejectUnauthorized: false }), connectTimeoutMs: 2000 },
    { logger: quiet },
  );
  const plain = new RemotingClient({}, { logger: quiet });
  try {
    assert.equal(namesrv.remotingServer.settings.tls.tlsMode, 'disabled');
    await assert.rejects(clusterInfo(tls, address));
    assert.deepEqual(await clusterInfo(plain, address), []);
  } finally {
    await tls.close();
    await plain.close();
    await namesrv.shutdown();
  }
  writeFileSync(conf, 'listenPort=0\ntls.server.mode=strict\n');
  await assert.rejects(
    startNamesrvFromArgs(['-c', conf], { out: () => {}, err: () => {} }),
    /tls\.server\.mode: not one of/,
  );
});
