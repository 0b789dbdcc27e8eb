/**
 * `rmq start`'s pieces without a server: the development profile's overrides (profile < broker.conf
 * < flags), the banner (and that the scripts' parsers still find the addresses in it), the busy-port
 * line and the recovery progress line.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { brokerConfig, DEFAULT_BROKER_CONFIG, loadBrokerConfig } from '../../../src/broker/broker-config.js';
import { describeProfile, devBrokerIP, startBrokerOverrides } from '../../../src/cli/dev-profile.js';
import { checkPortsFree, PortInUseError, portInUseFrom } from '../../../src/cli/port-check.js';
import { formatRecoveryProgress, recoveryProgressPrinter } from '../../../src/cli/progress-line.js';
import { formatStartBanner, type StartBannerInfo } from '../../../src/cli/start-banner.js';
import { startPorts } from '../../../src/cli/start-command.js';

const env = { hostName: 'laptop', localAddress: '10.9.8.7', homeDir: '/home/me', namesrvAddr: undefined };
const noFile = new Set<string>();
const lookup = () => '10.9.8.7';

test('the profile turns SQL92 on and announces loopback where upstream announces the LAN address', () => {
  const upstream = brokerConfig({}, env);
  const dev = brokerConfig(
    startBrokerOverrides({ fileKeys: noFile, flags: {}, lookupLocalAddress: lookup }),
    env,
  );
  assert.equal(upstream.enablePropertyFilter, false);
  assert.equal(dev.enablePropertyFilter, true);
  assert.equal(dev.autoCreateTopicEnable, true);
  assert.equal(dev.autoCreateSubscriptionGroup, true);
  assert.equal(upstream.brokerIP1, '10.9.8.7');
  assert.equal(dev.brokerIP1, '127.0.0.1');
  assert.equal(dev.brokerIP2, '127.0.0.1');
  // Nothing else moves.
  const differing = Object.keys(dev).filter(
    (k) =>
      (dev as unknown as Record<string, unknown>)[k] !== (upstream as unknown as Record<string, unknown>)[k],
  );
  assert.deepEqual(differing.sort(), ['brokerIP1', 'brokerIP2', 'enablePropertyFilter', 'haListenHost']);
  assert.equal(dev.haListenHost, '127.0.0.1', 'an HA port a broker.conf opens is loopback only');
  assert.equal(upstream.haListenHost, undefined);
  assert.equal(DEFAULT_BROKER_CONFIG.enablePropertyFilter, false, "upstream's default stays as it is");
});

test('--broker-ip, then --host, decide the announced address', () => {
  assert.equal(devBrokerIP(undefined, lookup), '127.0.0.1');
  assert.equal(devBrokerIP('192.168.1.20', lookup), '192.168.1.20');
  assert.equal(devBrokerIP('0.0.0.0', lookup), '10.9.8.7', 'every interface: the address others reach');
  assert.equal(devBrokerIP('::', lookup), '10.9.8.7');
  const host = startBrokerOverrides({
    fileKeys: noFile,
    flags: {},
    host: '192.168.1.20',
    lookupLocalAddress: lookup,
  });
  assert.equal(host.brokerIP1, '192.168.1.20');
  const flag = startBrokerOverrides({
    fileKeys: noFile,
    flags: { brokerIP1: '10.0.0.5' },
    host: '192.168.1.20',
    lookupLocalAddress: lookup,
  });
  assert.equal(flag.brokerIP1, '10.0.0.5');
  assert.equal(flag.brokerIP2, '10.0.0.5');
});

test('broker.conf wins over the profile, flags over broker.conf', () => {
  const text =
    'enablePropertyFilter=false\nbrokerIP1=10.1.1.1\nautoCreateTopicEnable=false\nlistenPort=20911\n';
  const overrides = startBrokerOverrides({
    fileKeys: new Set(['enablePropertyFilter', 'brokerIP1', 'autoCreateTopicEnable', 'listenPort']),
    flags: { listenPort: 30911, autoCreateSubscriptionGroup: undefined },
    lookupLocalAddress: lookup,
  });
  const { config } = loadBrokerConfig(text, { env, overrides });
  assert.equal(config.enablePropertyFilter, false);
  assert.equal(config.autoCreateTopicEnable, false);
  assert.equal(config.autoCreateSubscriptionGroup, true);
  assert.equal(config.brokerIP1, '10.1.1.1');
  assert.equal(config.brokerIP2, '127.0.0.1', 'the file names only brokerIP1');
  assert.equal(config.listenPort, 30911);
});

const info: StartBannerInfo = {
  startedInMs: 321,
  namesrvAddr: '127.0.0.1:9876',
  brokerAddr: '127.0.0.1:10911',
  clusterName: 'DefaultCluster',
  brokerName: 'laptop',
  dataDir: '/home/me/proj/data',
  profile: describeProfile({
    enablePropertyFilter: true,
    autoCreateTopicEnable: true,
    autoCreateSubscriptionGroup: false,
    brokerIP1: '127.0.0.1',
  }),
};

test('the banner fits one screen and says how to point a Java or Node client at it', () => {
  const banner = formatStartBanner(info);
  const lines = banner.trimEnd().split('\n');
  assert.ok(lines.length <= 24, `${lines.length} lines`);
  assert.ok(
    lines.every((l) => l.length <= 100),
    'no line wider than 100 columns',
  );
  assert.match(banner, /^ {2}data {9}\/home\/me\/proj\/data$/m);
  assert.match(banner, /SQL92 filters on, auto-create topics on, groups off, announced as 127\.0\.0\.1/);
  assert.match(banner, /export NAMESRV_ADDR=127\.0\.0\.1:9876/);
  assert.match(banner, /namesrvAddr: '127\.0\.0\.1:9876'/);
  assert.match(banner, /setNamesrvAddr\("127\.0\.0\.1:9876"\)/);
  assert.doesNotMatch(banner, /dashboard/);
  const withDashboard = formatStartBanner({ ...info, dashboardUrl: 'http://127.0.0.1:8080/' });
  assert.match(withDashboard, /^ {2}dashboard {4}http:\/\/127\.0\.0\.1:8080\/$/m);
});

test("the scripts' parsers of rmq start's output still find both addresses", () => {
  const banner = formatStartBanner({ ...info, dashboardUrl: 'http://127.0.0.1:8080/' });
  // scripts/bench-support.ts, scripts/chaos/solo-broker.ts, scripts/bench-pull.ts
  assert.equal(/name server\s+(\S+)/.exec(banner)?.[1], '127.0.0.1:9876');
  assert.equal(/broker\s+(\d+\.\d+\.\d+\.\d+:\d+)/.exec(banner)?.[1], '127.0.0.1:10911');
  // scripts/bench-compare-brokers.ts reads line by line; scripts/bench-start.ts waits for 'broker '.
  assert.equal(
    banner
      .split('\n')
      .find((l) => /name server\s+\S+/.test(l))
      ?.trim(),
    'name server  127.0.0.1:9876',
  );
  assert.ok(banner.includes('broker '));
  // test/integration/cli/start.test.ts
  assert.match(banner, /name server\s+(\S+)\n\s+broker\s+(\S+) \(cluster DefaultCluster, name laptop\)/);
});

async function listening(port = 0): Promise<Server> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

test('a busy port is named with the flag that moves it, before anything starts', async () => {
  const blocker = await listening();
  try {
    const port = (blocker.address() as AddressInfo).port;
    await assert.rejects(checkPortsFree(startPorts(port, 0), '127.0.0.1'), (error: unknown) => {
      assert.ok(error instanceof PortInUseError);
      assert.equal(error.exitCode, 1);
      assert.equal(
        error.message,
        `port ${port} (name server) is already in use; pick another with --namesrv-port <port>`,
      );
      return true;
    });
    await assert.rejects(checkPortsFree(startPorts(0, port), '127.0.0.1'), /\(broker\).*--broker-port/);
    await assert.rejects(
      checkPortsFree(startPorts(0, port + 2), '127.0.0.1'),
      new RegExp(`port ${port} \\(broker VIP channel, broker port - 2\\).*--broker-port`),
    );
  } finally {
    blocker.close();
  }
  // Our own ports colliding with each other are caught too.
  const free = await listening();
  const port = (free.address() as AddressInfo).port;
  free.close();
  await once(free, 'close');
  await assert.rejects(checkPortsFree(startPorts(port, port + 2), '127.0.0.1'), /broker VIP channel/);
  await checkPortsFree(startPorts(port, 0), '127.0.0.1');
});

test('an EADDRINUSE from a real listen() maps to the same line; other errors pass through', async () => {
  const blocker = await listening();
  const port = (blocker.address() as AddressInfo).port;
  const second = createServer();
  try {
    second.listen(port, '127.0.0.1');
    const [error] = (await once(second, 'error')) as [Error];
    const mapped = portInUseFrom(error, startPorts(9, port));
    assert.ok(mapped instanceof PortInUseError);
    assert.equal(mapped.flag, '--broker-port');
    assert.equal(portInUseFrom(new Error('boom'), startPorts(9, port)), undefined);
    assert.equal(portInUseFrom(error, startPorts(9, 0)), undefined, 'not one of our ports');
  } finally {
    blocker.close();
    second.close();
  }
});

test('the recovery progress line has bytes, percent and ETA, and only a terminal gets it', () => {
  const mib = 1024 * 1024;
  assert.equal(
    formatRecoveryProgress({ scannedBytes: 256 * mib, totalBytes: 1024 * mib, elapsedMs: 2000, done: false }),
    'recovering the commit log: 256.0 MiB of 1.0 GiB (25 %), ETA 6 s',
  );
  assert.equal(
    formatRecoveryProgress({ scannedBytes: 0, totalBytes: 1024 * mib, elapsedMs: 0, done: false }),
    'recovering the commit log: 0 B of 1.0 GiB (0 %), ETA unknown',
  );
  assert.equal(
    formatRecoveryProgress({
      scannedBytes: 1024 * mib,
      totalBytes: 1024 * mib,
      elapsedMs: 95_000,
      done: true,
    }),
    'recovering the commit log: 1.0 GiB of 1.0 GiB (100 %) in 1 min 35 s',
  );
  assert.equal(recoveryProgressPrinter({ out: () => undefined, err: () => undefined }), undefined);
  assert.equal(
    recoveryProgressPrinter({ out: () => undefined, err: () => undefined, isTTY: false }),
    undefined,
  );
  const written: string[] = [];
  const print = recoveryProgressPrinter({ out: (t) => written.push(t), err: () => undefined, isTTY: true });
  assert.ok(print !== undefined);
  print({ scannedBytes: 10 * mib, totalBytes: 100 * mib, elapsedMs: 1000, done: false });
  print({ scannedBytes: 100 * mib, totalBytes: 100 * mib, elapsedMs: 9000, done: true });
  assert.equal(written.length, 2);
  assert.match(written[0] ?? '', /^\rrecovering the commit log: 10\.0 MiB of 100\.0 MiB \(10 %\), ETA 9 s$/);
  assert.ok(written[1]?.startsWith('\r') && written[1].endsWith('in 9 s\n'));
  assert.ok((written[1]?.length ?? 0) - 2 >= (written[0]?.length ?? 0) - 1, 'covers the previous line');
});
