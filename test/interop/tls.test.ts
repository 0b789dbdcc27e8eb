/**
 * TLS against the official 4.9.8 jars, both ways:
 * - the official producer and push consumer started with `-Dtls.enable=true` (ClientConfig.useTLS)
 *   send and consume through our name server and broker in enforcing and in permissive mode;
 * - our producer and push consumer with `tls: true` and `credentials` send and consume through the
 *   official name server and broker started with `-Dtls.server.mode=enforcing` (the broker with
 *   `-Dtls.enable=true` to register, and ACL on), both serving upstream's self-signed test certificate.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TLSSocket } from 'node:tls';
import { createLogger, type LogRecord } from '../../src/common/logger.js';
import { startStandalone } from '../../src/embedded/standalone.js';
import {
  createProducer,
  createPushConsumer,
  type MessageExt,
  MQBrokerError,
  MQClientError,
  type PushConsumer,
  SendStatus,
} from '../../src/index.js';
import { createRequest } from '../../src/remoting/protocol/command.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { type Connection, RemotingClient } from '../../src/remoting/transport/index.js';
import { ADMIN, PLAIN_ACL_YML } from './acl-support.js';
import { type BrokerHandle, type NamesrvHandle, runJava, startBroker, startNamesrv } from './harness.js';

const PROBE = 'org.rocketmqts.interop.OfficialClientsProbe';
const MESSAGES = 10;
const quiet = createLogger('tls-interop', { level: 'silent' });

function lastJsonLine(stdout: string): Record<string, unknown> {
  const line = stdout.trim().split('\n').pop() ?? '';
  const parsed: unknown = JSON.parse(line);
  assert.ok(typeof parsed === 'object' && parsed !== null, `not a JSON object: ${line}`);
  return parsed as Record<string, unknown>;
}

describe('official 4.9.8 clients with -Dtls.enable=true -> our name server and broker', {
  timeout: 600_000,
}, () => {
  for (const mode of ['enforcing', 'permissive'] as const) {
    test(`tls.server.mode=${mode}: the official producer sends, the push consumer consumes`, {
      timeout: 300_000,
    }, async () => {
      const dir = mkdtempSync(join(tmpdir(), `rmq-interop-tls-${mode}-`));
      const records: LogRecord[] = [];
      const pair = await startStandalone({
        dataDir: join(dir, 'data'),
        namesrvPort: 0,
        host: '127.0.0.1',
        broker: {
          listenPort: 0,
          brokerIP1: '127.0.0.1',
          brokerIP2: '127.0.0.1',
          brokerName: 'broker-ts-tls',
        },
        tls: { tlsMode: mode },
        logger: createLogger('tls-interop', { level: 'warn', sink: (r) => records.push(r) }),
      });
      const seen = { tls: 0, plaintext: 0 };
      const count = (connection: Connection) => {
        seen[connection.stream instanceof TLSSocket ? 'tls' : 'plaintext']++;
      };
      pair.namesrv.remotingServer.on('connection', count);
      pair.broker.remotingServer.on('connection', count);
      try {
        const topic = `ts_tls_${mode}_${Date.now()}`;
        const r = await runJava(PROBE, ['roundtrip', pair.namesrvAddr, topic, String(MESSAGES), '90000'], {
          timeoutMs: 200_000,
          jvmArgs: ['-Dtls.enable=true'],
        });
        assert.equal(r.exitCode, 0, `probe failed:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`);
        const out = lastJsonLine(r.stdout);
        assert.equal(out.complete, true, JSON.stringify(out));
        assert.equal((out.received as unknown[]).length, MESSAGES);
        // The name server and the broker each saw the official client over TLS, never in plaintext.
        assert.ok(seen.tls >= 2, JSON.stringify(seen));
        assert.equal(seen.plaintext, 0, JSON.stringify(seen));
        if (mode === 'enforcing') {
          // Without -Dtls.enable the official client cannot even read a route.
          const plain = await runJava(PROBE, ['roundtrip', pair.namesrvAddr, `${topic}_plain`, '1', '5000'], {
            timeoutMs: 120_000,
          });
          assert.notEqual(plain.exitCode, 0, plain.stdout.slice(-1000));
          assert.ok(records.some((r) => /insecure connection .* SSL enforcing mode/.test(r.msg)));
        }
      } finally {
        await pair.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('our clients with tls: true and credentials -> official 4.9.8 name server and broker, TLS enforcing, ACL on', {
  timeout: 600_000,
}, () => {
  let namesrv: NamesrvHandle | undefined;
  let broker: BrokerHandle | undefined;

  before(
    async () => {
      namesrv = await startNamesrv({ extraJvmArgs: ['-Dtls.server.mode=enforcing'] });
      broker = await startBroker({
        namesrvAddr: namesrv.addr,
        brokerName: 'broker-java-tls',
        extraJvmArgs: ['-Dtls.server.mode=enforcing', '-Dtls.enable=true'],
        namesrvTls: true,
        config: { aclEnable: true },
        homeFiles: { 'conf/plain_acl.yml': PLAIN_ACL_YML },
      });
    },
    { timeout: 240_000 },
  );

  after(
    async () => {
      await broker?.close();
      await namesrv?.close();
    },
    { timeout: 60_000 },
  );

  test('plaintext is refused by both', { timeout: 30_000 }, async () => {
    assert.ok(namesrv && broker);
    const plain = new RemotingClient({ connectTimeoutMs: 3000 }, { logger: quiet });
    try {
      for (const addr of [namesrv.addr, broker.addr]) {
        await assert.rejects(
          plain.invoke(addr, createRequest(RequestCode.GET_BROKER_CLUSTER_INFO), { timeoutMs: 3000 }),
          addr,
        );
      }
    } finally {
      await plain.close();
    }
  });

  test('a wrong secret over TLS gets the ACL denial (code 1, AclException remark)', {
    timeout: 60_000,
  }, async () => {
    assert.ok(namesrv && broker);
    const producer = createProducer({
      producerGroup: `pg_tls_wrong_${Date.now()}`,
      namesrvAddr: namesrv.addr,
      tls: { rejectUnauthorized: false },
      credentials: { accessKey: ADMIN.accessKey, secretKey: 'not-the-secret' },
      retryTimesWhenSendFailed: 0,
      logger: quiet,
    });
    await producer.start();
    try {
      await assert.rejects(
        producer.send({ topic: `ts_to_java_tls_wrong_${Date.now()}`, body: 'x' }),
        (error) => {
          assert.ok(error instanceof MQClientError, String(error));
          assert.equal(error.responseCode, 1);
          assert.ok(error.cause instanceof MQBrokerError, String(error.cause));
          assert.match(
            error.cause.remark ?? '',
            /^org\.apache\.rocketmq\.acl\.common\.AclException: Check signature failed for accessKey=/,
          );
          return true;
        },
      );
    } finally {
      await producer.shutdown();
    }
  });

  test('our producer sends and our push consumer consumes over TLS, signed', {
    timeout: 180_000,
  }, async () => {
    assert.ok(namesrv && broker);
    const topic = `ts_to_java_tls_${Date.now()}`;
    const producer = createProducer({
      producerGroup: `pg_tls_${Date.now()}`,
      namesrvAddr: namesrv.addr,
      tls: { rejectUnauthorized: false },
      credentials: { ...ADMIN },
      logger: quiet,
      sendMsgTimeout: 10_000,
    });
    await producer.start();
    const sent = new Set<string>();
    try {
      for (let i = 0; i < MESSAGES; i++) {
        const result = await producer.send({ topic, body: Buffer.from(`tls-${i}`) });
        assert.equal(result.sendStatus, SendStatus.SEND_OK);
        sent.add(`tls-${i}`);
      }
    } finally {
      await producer.shutdown();
    }
    const received = new Set<string>();
    let allReceived: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      allReceived = resolve;
    });
    const consumer: PushConsumer = createPushConsumer({
      consumerGroup: `cg_tls_${Date.now()}`,
      namesrvAddr: namesrv.addr,
      clientIP: '127.0.0.1',
      tls: { rejectUnauthorized: false },
      credentials: { ...ADMIN },
      logger: quiet,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      rebalanceWaitInterval: 1000,
      pollNameServerInterval: 1000,
      heartbeatBrokerInterval: 1000,
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
  });
});
