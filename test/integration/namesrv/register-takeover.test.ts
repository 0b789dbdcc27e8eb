/**
 * REGISTER_BROKER from a connection a live broker did not register on (issue 26): refused when it
 * would move the broker's slot or address, taken and logged with rejectLiveBrokerTakeover off; a
 * closing connection removes only what it registered. Restarts and moves after the old connection
 * closed still register at once. Real TCP on 127.0.0.1, one RemotingClient per connection.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { decodeTopicRouteData } from '../../../src/common/protocol/route.js';
import { createNamesrv, type NamesrvController, type NamesrvSettings } from '../../../src/namesrv/index.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import { GetRouteInfoRequestHeader } from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { type Connection, RemotingClient } from '../../../src/remoting/transport/index.js';
import { quiet, registerRequest, topics } from '../../unit/namesrv/helpers.js';

const LIMIT = { timeout: 10_000 };
const REAL = '10.0.0.1:10911';
const ATTACKER = '10.6.6.6:10911';
const dir = mkdtempSync(join(tmpdir(), 'rmq-ns-takeover-'));
let count = 0;
const running: NamesrvController[] = [];
const clients: RemotingClient[] = [];

after(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(running.splice(0).map((n) => n.shutdown()));
});

async function start(settings: Partial<NamesrvSettings> = {}, clock?: ManualClock) {
  count++;
  const namesrv = createNamesrv({
    ...(clock === undefined ? {} : { clock }),
    listenPort: 0,
    kvConfigPath: join(dir, `ns-${count}`, 'kvConfig.json'),
    logger: quiet,
    settings: { listenHost: '127.0.0.1', ...settings },
  });
  running.push(namesrv);
  const addr = `127.0.0.1:${(await namesrv.start()).port}`;
  /** Resolves once the name server has handled the close of the next connection that closes. */
  const closes: Array<() => void> = [];
  namesrv.remotingServer.on('connection', (c: Connection) => {
    c.once('close', () => closes.shift()?.());
  });
  /** One TCP connection to the name server, as one broker (or one attacker) holds it. */
  const connect = () => {
    const client = new RemotingClient({ clientChannelMaxIdleTimeSeconds: 0 }, { logger: quiet });
    clients.push(client);
    return {
      call: (cmd: RemotingCommand) => client.invoke(addr, cmd, { timeoutMs: 3000 }),
      close: async () => {
        const handled = new Promise<void>((resolve) => closes.push(resolve));
        await client.close();
        await handled;
      },
    };
  };
  const routeOf = async (topic: string) => {
    const reply = await connect().call(
      createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, {
        extFields: encodeHeader(GetRouteInfoRequestHeader, { topic }),
      }),
    );
    if (reply.code !== ResponseCode.SUCCESS) return undefined;
    const route = decodeTopicRouteData(reply.body);
    return {
      addrs: Object.fromEntries(route.brokerDatas[0]?.brokerAddrs ?? []),
      perm: route.queueDatas[0]?.perm,
    };
  };
  return { namesrv, connect, routeOf };
}

describe('a registration taking a live broker from another connection', () => {
  test(
    'is refused: NO_PERMISSION, the route stays the real broker, closing it removes nothing',
    LIMIT,
    async () => {
      const { connect, routeOf } = await start();
      const broker = connect();
      assert.equal((await broker.call(registerRequest({ topics: topics('TBW102', 'T') }))).code, 0);
      const attacker = connect();
      const slot = await attacker.call(registerRequest({ brokerAddr: ATTACKER, topics: topics('TBW102') }));
      assert.equal(slot.code, ResponseCode.NO_PERMISSION);
      assert.match(slot.remark ?? '', /rejectLiveBrokerTakeover/);
      // The live address under another id (it would drop the master from its slot).
      const id = await attacker.call(registerRequest({ brokerId: 1n, topics: topics('TBW102') }));
      assert.equal(id.code, ResponseCode.NO_PERMISSION);
      assert.deepEqual((await routeOf('TBW102'))?.addrs, { 0: REAL });
      await attacker.close();
      assert.deepEqual((await routeOf('TBW102'))?.addrs, { 0: REAL });
      assert.deepEqual((await routeOf('T'))?.addrs, { 0: REAL });
      // The real broker's own heartbeats go on.
      assert.equal((await broker.call(registerRequest({ topics: topics('TBW102', 'T') }))).code, 0);
    },
  );

  test(
    'the same address from a second connection registers at once; either closing keeps it',
    LIMIT,
    async () => {
      const { connect, routeOf } = await start();
      const old = connect();
      assert.equal((await old.call(registerRequest({ topics: topics('T') }))).code, 0);
      // A restart on the same address while the old connection is still open (no FIN seen yet).
      const restarted = connect();
      assert.equal((await restarted.call(registerRequest({ topics: topics('T'), counter: 2n }))).code, 0);
      await old.close();
      assert.deepEqual((await routeOf('T'))?.addrs, { 0: REAL });
      await restarted.close();
      assert.equal(await routeOf('T'), undefined, 'the last connection of the address took it away');
    },
  );

  test('a broker moving address after its old connection closed registers at once', LIMIT, async () => {
    const { connect, routeOf } = await start();
    const old = connect();
    assert.equal((await old.call(registerRequest({ topics: topics('T') }))).code, 0);
    await old.close();
    const moved = connect();
    const reply = await moved.call(registerRequest({ brokerAddr: '10.0.0.9:10911', topics: topics('T') }));
    assert.equal(reply.code, 0);
    assert.deepEqual((await routeOf('T'))?.addrs, { 0: '10.0.0.9:10911' });
  });

  test('once the live broker expired, another address may take its slot', LIMIT, async () => {
    const clock = new ManualClock();
    const { namesrv, connect, routeOf } = await start({ scanNotActiveBrokerDelay: 600_000 }, clock);
    const broker = connect();
    assert.equal((await broker.call(registerRequest({ topics: topics('T') }))).code, 0);
    // Silent for longer than brokerChannelExpiredTime: no longer live, though its connection is
    // open (the scan that would close it has not run yet).
    clock.advance(120_001);
    const next = connect();
    assert.equal((await next.call(registerRequest({ brokerAddr: ATTACKER, topics: topics('T') }))).code, 0);
    assert.deepEqual((await routeOf('T'))?.addrs, { 0: ATTACKER });
    assert.ok(namesrv.routeInfoManager.getBrokerLiveInfo(ATTACKER));
  });

  test('rejectLiveBrokerTakeover=false takes it (logged); closing hands the slot back', LIMIT, async () => {
    const { connect, routeOf } = await start({ rejectLiveBrokerTakeover: false });
    const broker = connect();
    assert.equal((await broker.call(registerRequest({ topics: topics('TBW102') }))).code, 0);
    const attacker = connect();
    const wiped = topics('TBW102').map((t) => ({ ...t, perm: 0 }));
    const taken = await attacker.call(registerRequest({ brokerAddr: ATTACKER, topics: wiped, counter: 9n }));
    assert.equal(taken.code, 0);
    assert.deepEqual((await routeOf('TBW102'))?.addrs, { 0: ATTACKER });
    await attacker.close();
    assert.deepEqual((await routeOf('TBW102'))?.addrs, { 0: REAL }, 'not an empty route');
    // Its next heartbeat (same DataVersion as before) puts its own topic configs back.
    assert.equal((await broker.call(registerRequest({ topics: topics('TBW102') }))).code, 0);
    assert.equal((await routeOf('TBW102'))?.perm, 6);
  });
});

test('a closing connection that registered nothing leaves every route', LIMIT, async () => {
  const { connect, routeOf } = await start();
  const broker = connect();
  assert.equal((await broker.call(registerRequest({ topics: topics('T') }))).code, 0);
  const other = connect();
  await other.call(createRequest(RequestCode.GET_BROKER_CLUSTER_INFO));
  await other.close();
  assert.deepEqual((await routeOf('T'))?.addrs, { 0: REAL });
});
