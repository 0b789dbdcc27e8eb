/**
 * Issue 26, point 1: "the HA port gives the whole commit log to anyone". Starts our broker in this
 * process on loopback, stores a message, and sends 8 zero bytes (an upstream slave's first offset
 * report) to listenPort + 1 and to the HA address the broker registers: held when no commit-log
 * byte comes back. Three brokers: upstream's defaults (an ASYNC_MASTER expecting no slave), and a
 * master expecting a slave (totalReplicas=2, port open) with ACL on and with TLS enforcing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrokerConfigOverrides } from '../../src/broker/broker-config.js';
import { type CreateBrokerOptions, createBroker } from '../../src/broker/broker-controller.js';
import { createLogger } from '../../src/common/logger.js';
import { DefaultMessageStore } from '../../src/store/default-message-store.js';
import { freeBrokerPort } from '../../test/integration/broker/slave-support.js';
import { msg } from '../../test/unit/store/default-message-store-support.js';
import type { AttackClass, AttackVerdict } from './attack-class.js';

const NAME = 'ha-port';
/** How long a silent, open connection is watched before it counts as giving nothing. */
const WATCH_MS = 1500;
const ACL_FILE = `accounts:
  - accessKey: attackAdmin
    secretKey: attackAdminSecret
    admin: true
`;

interface Outcome {
  bytes: number;
  how: string;
}

/** 8 zero bytes to host:port; resolves on refusal, close, the first byte back, or WATCH_MS of silence. */
function zeroReport(host: string, port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect({ host, port });
    let bytes = 0;
    let settled = false;
    const done = (how: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ bytes, how });
    };
    const timer = setTimeout(() => done(`open and silent for ${WATCH_MS} ms`), WATCH_MS);
    socket.on('connect', () => socket.write(Buffer.alloc(8)));
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      done(`${bytes} bytes back`);
    });
    socket.on('error', (err: NodeJS.ErrnoException) =>
      done(err.code === 'ECONNREFUSED' ? 'connect refused' : (err.code ?? err.message)),
    );
    socket.on('close', () => done(`closed after ${Date.now() - started} ms`));
  });
}

interface Scene {
  label: string;
  config: BrokerConfigOverrides;
  options?: Omit<CreateBrokerOptions, 'config' | 'logger'>;
}

async function attack(scene: Scene, root: string): Promise<AttackVerdict[]> {
  const listenPort = await freeBrokerPort();
  const broker = createBroker({
    config: {
      listenPort,
      listenHost: '127.0.0.1',
      brokerIP1: '127.0.0.1',
      brokerIP2: '127.0.0.1',
      brokerName: 'attack-ha',
      storePathRootDir: join(root, 'store'),
      mappedFileSizeCommitLog: 1024 * 1024,
      ...scene.config,
    },
    ...scene.options,
    logger: createLogger('attack', { level: 'silent' }),
  });
  await broker.start();
  try {
    const store = broker.messageStore;
    if (!(store instanceof DefaultMessageStore)) throw new Error('the broker has no DefaultMessageStore');
    const put = await store.putMessage(msg(0, { body: 'a secret the HA port must not give away' }));
    if (put.putMessageStatus !== 'PUT_OK') throw new Error(`put failed: ${put.putMessageStatus}`);
    const targets = new Set([`127.0.0.1:${listenPort + 1}`, broker.haServerAddr]);
    const verdicts: AttackVerdict[] = [];
    for (const target of targets) {
      const colon = target.lastIndexOf(':');
      const out = await zeroReport(target.slice(0, colon), Number(target.slice(colon + 1)));
      verdicts.push({
        attack: NAME,
        case: `${scene.label}, 8 zero bytes to ${target}`,
        verdict: out.bytes === 0 ? 'held' : 'breached',
        figure: out.how,
      });
    }
    return verdicts;
  } finally {
    await broker.shutdown();
  }
}

export const haPort: AttackClass = {
  name: NAME,
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'rmq-attack-ha-'));
    try {
      const home = join(dir, 'home');
      mkdirSync(join(home, 'conf'), { recursive: true });
      writeFileSync(join(home, 'conf', 'plain_acl.yml'), ACL_FILE);
      const scenes: Scene[] = [
        { label: 'defaults', config: {} },
        {
          label: 'ACL on, slave expected',
          config: { aclEnable: true, rocketmqHome: home, totalReplicas: 2 },
        },
        {
          label: 'TLS enforcing, slave expected',
          config: { totalReplicas: 2 },
          options: { tls: { tlsMode: 'enforcing' } },
        },
      ];
      const verdicts: AttackVerdict[] = [];
      for (const [i, scene] of scenes.entries()) verdicts.push(...(await attack(scene, join(dir, `s${i}`))));
      return verdicts;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
