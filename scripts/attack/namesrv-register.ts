/**
 * 'namesrv-register' (issue 26, point 6): with the name server's ACL off (the default), an unsigned
 * REGISTER_BROKER under a live broker's name and id, from a connection of its own, tries to point
 * TBW102's route at the attacker's address; then the attacker closes its connection, which used to
 * empty every route of that broker until its next registration. Held when the route still names the
 * real broker after each step. Starts its own name server and broker in this process, on 127.0.0.1.
 */
import { join } from 'node:path';
import { createBroker } from '../../src/broker/index.js';
import { createLogger } from '../../src/common/logger.js';
import { decodeTopicRouteData } from '../../src/common/protocol/route.js';
import { createNamesrv } from '../../src/namesrv/index.js';
import type { Connection } from '../../src/remoting/transport/index.js';
import { RemotingClient } from '../../src/remoting/transport/index.js';
import { removeTempDir, tempDir } from '../bench-support.js';
import type { AttackClass, AttackVerdict } from './attack-class.js';
import { registerBroker, routeOf } from './raw-requests.js';

const NAME = 'namesrv-register';
const ATTACKER_ADDR = '127.0.0.66:10911';
const quiet = createLogger('attack', { level: 'silent' });

export const namesrvRegister: AttackClass = {
  name: NAME,
  async run(): Promise<AttackVerdict[]> {
    const dir = tempDir('rmq-attack-ns-');
    const namesrv = createNamesrv({
      listenPort: 0,
      kvConfigPath: join(dir, 'kvConfig.json'),
      logger: quiet,
      settings: { listenHost: '127.0.0.1' },
    });
    const nsAddr = `127.0.0.1:${(await namesrv.start()).port}`;
    // Registered after the name server's own close handler, so it runs after the cleanup.
    const closes: Array<() => void> = [];
    namesrv.remotingServer.on('connection', (c: Connection) => {
      c.once('close', () => closes.shift()?.());
    });
    const broker = createBroker({
      config: {
        storePathRootDir: join(dir, 'store'),
        listenPort: 0,
        listenHost: '127.0.0.1',
        brokerIP1: '127.0.0.1',
        brokerName: 'broker-real',
        namesrvAddr: nsAddr,
      },
      logger: quiet,
    });
    const reader = new RemotingClient({}, { logger: quiet });
    const attacker = new RemotingClient({ clientChannelMaxIdleTimeSeconds: 0 }, { logger: quiet });
    try {
      await broker.start();
      const real = broker.brokerAddr;
      const routeAddr = async (): Promise<string> => {
        const reply = await reader.invoke(nsAddr, routeOf('TBW102'), { timeoutMs: 3000 });
        if (reply.code !== 0) return `no route (code ${reply.code})`;
        return decodeTopicRouteData(reply.body).brokerDatas[0]?.brokerAddrs.get(0) ?? 'no master';
      };
      const verdicts: AttackVerdict[] = [];
      const reply = await attacker.invoke(
        nsAddr,
        registerBroker({
          clusterName: broker.config.brokerClusterName,
          brokerName: 'broker-real',
          brokerId: 0n,
          brokerAddr: ATTACKER_ADDR,
          topics: ['TBW102'],
        }),
        { timeoutMs: 3000 },
      );
      const afterRegister = await routeAddr();
      verdicts.push({
        attack: NAME,
        case: 'REGISTER_BROKER as a live broker, other conn',
        verdict: afterRegister === real ? 'held' : 'breached',
        figure: `answer code ${reply.code}; TBW102 master ${afterRegister === real ? 'still the real broker' : afterRegister}`,
      });
      // The next connection to close is the attacker's: wait until the name server handled it.
      const serverSide = new Promise<void>((resolve) => closes.push(resolve));
      await attacker.close();
      await serverSide;
      const afterClose = await routeAddr();
      verdicts.push({
        attack: NAME,
        case: "closing the attacker's connection",
        verdict: afterClose === real ? 'held' : 'breached',
        figure: `TBW102 master ${afterClose === real ? 'still the real broker' : afterClose}`,
      });
      return verdicts;
    } finally {
      await attacker.close();
      await reader.close();
      await broker.shutdown();
      await namesrv.shutdown();
      removeTempDir(dir);
    }
  },
};
