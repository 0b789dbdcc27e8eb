/**
 * `rmq start` as a development broker, run through the CLI's main() in this process (so the test runs
 * from any build directory): loopback as brokerIP1, SQL92 subscriptions accepted and filtered, a busy
 * port named in one line with exit code 1; and `rmq broker` with upstream's defaults exactly, which
 * refuses SQL92 with upstream's message.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { brokerConfig } from '../../../src/broker/broker-config.js';
import { startBrokerFromArgs } from '../../../src/cli/broker-command.js';
import { type CliIO, main } from '../../../src/cli/main.js';
import { createProducer, createPushConsumer, type MessageQueueSelector } from '../../../src/client/index.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { localAddress } from '../../../src/common/platform/local-address.js';
import { decodeClusterInfo } from '../../../src/common/protocol/route.js';
import { createNamesrv } from '../../../src/namesrv/index.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';

const WAIT_MS = 30_000;

interface Captured {
  io: CliIO;
  out(): string;
  err(): string;
  /** Resolves with the first match of `pattern` in stdout, as it arrives. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
}

function capture(): Captured {
  let out = '';
  let err = '';
  const waiters: Array<() => void> = [];
  return {
    io: {
      out: (text) => {
        out += text;
        for (const w of waiters.splice(0)) w();
      },
      err: (text) => {
        err += text;
      },
    },
    out: () => out,
    err: () => err,
    waitFor(pattern) {
      return new Promise((resolvePromise, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} in: ${out}${err}`)), WAIT_MS);
        const check = (): void => {
          const m = pattern.exec(out);
          if (m === null) {
            waiters.push(check);
            return;
          }
          clearTimeout(timer);
          resolvePromise(m);
        };
        check();
      });
    },
  };
}

async function registeredBrokers(namesrvAddr: string): Promise<string[]> {
  const client = new RemotingClient();
  try {
    const reply = await client.invoke(namesrvAddr, createRequest(RequestCode.GET_BROKER_CLUSTER_INFO), {
      timeoutMs: 5000,
    });
    return [...decodeClusterInfo(reply.body).brokerAddrTable.values()].flatMap((b) => [
      ...b.brokerAddrs.values(),
    ]);
  } finally {
    await client.close();
  }
}

/** Sends one message with property a=1 (keys "low") and one with a=5 ("high") to the same queue. */
async function sendLowAndHigh(namesrvAddr: string, topic: string): Promise<void> {
  const producer = createProducer({ namesrvAddr, producerGroup: `${topic}_producer` });
  await producer.start();
  try {
    const first: MessageQueueSelector = (mqs) => mqs[0]!;
    await producer.send({ topic, body: 'low', keys: 'low', properties: { a: '1' } }, { selector: first });
    await producer.send({ topic, body: 'high', keys: 'high', properties: { a: '5' } }, { selector: first });
  } finally {
    await producer.shutdown();
  }
}

function sqlConsumer(namesrvAddr: string, topic: string, got: (msg: MessageExt) => void) {
  const consumer = createPushConsumer({
    namesrvAddr,
    consumerGroup: `${topic}_group`,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  consumer.subscribe(topic, { type: 'SQL92', expression: 'a > 1' });
  consumer.registerMessageListener({
    type: 'concurrently',
    async consumeMessage(msgs) {
      for (const m of msgs) got(m);
      return 'CONSUME_SUCCESS';
    },
  });
  return consumer;
}

test('rmq start: announced on 127.0.0.1, a SQL92 subscription is accepted and filters', {
  timeout: 90_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-cli-dev-'));
  const cap = capture();
  // A fixed name server port: checked free, let go, then bound for real.
  const probe = createServer();
  probe.listen(0);
  await once(probe, 'listening');
  const namesrvPort = (probe.address() as AddressInfo).port;
  probe.close();
  await once(probe, 'close');
  // No --host and no --broker-ip: the profile's loopback announcement applies.
  const run = main(
    [
      'start',
      '-d',
      join(dir, 'data'),
      '--namesrv-port',
      String(namesrvPort),
      '--broker-port',
      '0',
      '--dashboard-port',
      '0',
    ],
    cap.io,
  );
  let stopped = false;
  try {
    const [, namesrvAddr = '', brokerAddr = ''] = await Promise.race([
      cap.waitFor(/name server\s+(\S+)\n\s+broker\s+(\d+\.\d+\.\d+\.\d+:\d+)/),
      run.then((code) => {
        throw new Error(`rmq start ended with ${code}: ${cap.err()}`);
      }),
    ]);
    assert.equal(namesrvAddr, `127.0.0.1:${namesrvPort}`);
    assert.match(brokerAddr, /^127\.0\.0\.1:\d+$/);
    assert.deepEqual(await registeredBrokers(namesrvAddr), [brokerAddr]);
    assert.match(cap.out(), /SQL92 filters on, auto-create topics on, groups on, announced as 127\.0\.0\.1/);
    assert.match(cap.out(), /export NAMESRV_ADDR=/);

    const topic = 'DevSqlTopic';
    await sendLowAndHigh(namesrvAddr, topic);
    const seen: string[] = [];
    let first: (key: string) => void = () => {};
    const firstSeen = new Promise<string>((r) => {
      first = r;
    });
    const consumer = sqlConsumer(namesrvAddr, topic, (m) => {
      seen.push(m.keys ?? '');
      first(m.keys ?? '');
    });
    await consumer.start();
    try {
      // "low" sits before "high" in the same queue: unfiltered, it would come first.
      assert.equal(await firstSeen, 'high');
      assert.deepEqual(seen, ['high']);
    } finally {
      await consumer.shutdown();
    }
    process.emit('SIGTERM');
    stopped = true;
    assert.equal(await run, 0);
    assert.match(cap.out(), /rmq start: shutting down/);
  } finally {
    if (!stopped) {
      process.emit('SIGTERM');
      await run.catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

test("rmq broker keeps upstream's defaults and refuses SQL92 with upstream's message", {
  timeout: 90_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-cli-upstream-'));
  const namesrv = createNamesrv({ listenPort: 0, kvConfigPath: join(dir, 'kv.json') });
  const cap = capture();
  try {
    const ns = await namesrv.start();
    const namesrvAddr = `127.0.0.1:${ns.port}`;
    const store = join(dir, 'store');
    const broker = await startBrokerFromArgs(['-n', namesrvAddr, '-p', '0', '-d', store], cap.io);
    try {
      // Exactly upstream's defaults under the three flags given.
      assert.deepEqual(
        broker.config,
        brokerConfig({ namesrvAddr, listenPort: 0, storePathRootDir: resolve(store) }),
      );
      assert.equal(broker.config.enablePropertyFilter, false);
      assert.equal(broker.config.brokerIP1, localAddress());
      assert.match(cap.out(), /^The broker\[.*\] boot success\. namesrvAddr=/);

      const topic = 'UpstreamSqlTopic';
      await sendLowAndHigh(namesrvAddr, topic);
      const consumer = sqlConsumer(namesrvAddr, topic, () => undefined);
      await assert.rejects(
        consumer.start(),
        /The broker does not support consumer to filter message by SQL92/,
      );
      await consumer.shutdown();
    } finally {
      await broker.shutdown();
    }
  } finally {
    await namesrv.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rmq start on a busy port: one line naming the port and its flag, exit 1, nothing started', {
  timeout: 30_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-cli-busy-dev-'));
  const blocker = createServer();
  blocker.listen(0, '127.0.0.1');
  await once(blocker, 'listening');
  try {
    const port = (blocker.address() as AddressInfo).port;
    const cases: Array<[string[], RegExp]> = [
      [
        ['--namesrv-port', String(port), '--broker-port', '0'],
        new RegExp(
          `^rmq start: port ${port} \\(name server\\) is already in use; pick another with --namesrv-port <port>\\n$`,
        ),
      ],
      [
        ['--namesrv-port', '0', '--broker-port', String(port)],
        new RegExp(
          `^rmq start: port ${port} \\(broker\\) is already in use; pick another with --broker-port <port>\\n$`,
        ),
      ],
      [
        ['--namesrv-port', '0', '--broker-port', String(port + 2)],
        new RegExp(
          `^rmq start: port ${port} \\(broker VIP channel, broker port - 2\\) is already in use; pick another with --broker-port <port>\\n$`,
        ),
      ],
    ];
    for (const [flags, expected] of cases) {
      const cap = capture();
      const data = join(dir, 'data');
      const code = await main(['start', '-d', data, '--host', '127.0.0.1', ...flags], cap.io);
      assert.equal(code, 1, cap.err());
      assert.match(cap.err(), expected);
      assert.equal(cap.out(), '');
      assert.equal(existsSync(data), false, 'refused before the store was opened');
    }
  } finally {
    blocker.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
