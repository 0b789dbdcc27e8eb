/**
 * admin-files: a producer sets UNIQ_KEY to a path out of mqadmin's body directory, and a consumer
 * names itself with one, then the operator runs `rmq admin queryMsgById`, `queryMsgByOffset` and
 * `consumerStatus` (as child processes, TMPDIR and cwd in a temp dir). Held when every file the
 * commands wrote is inside the directory it belongs in and nothing appeared where the ids point.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createPushConsumer } from '../../src/client/index.js';
import { createTopicConfig } from '../../src/common/protocol/topic-config.js';
import { rmqCommand } from '../bench-support.js';
import { rawClient, rawSend, silent, startTarget, verdict } from './acl-attack-support.js';
import type { AttackClass, AttackVerdict } from './attack-class.js';

const NAME = 'admin-files';
const TOPIC = 'AttackAdminFiles';
const GROUP = 'attack_admin_files';
/** Relative to <TMPDIR>/rocketmq/msgbodys: lands at <TMPDIR>/../planted-by-uniq-key. */
const HOSTILE_UNIQ_KEY = '../../../planted-by-uniq-key';
/** Relative to <cwd>/<now>/ once joined after `127.0.0.1@`: lands beside cwd. */
const HOSTILE_INSTANCE = '../../../planted-by-client-id';

function run(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...rmqCommand(), ...args], { cwd, env, stdio: 'pipe' });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, out });
    });
  });
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

export const adminFiles: AttackClass = {
  name: NAME,
  async run() {
    const target = await startTarget(NAME, { autoCreateTopicEnable: true });
    const rows: AttackVerdict[] = [];
    const sandbox = join(target.dir, 'operator');
    const tmp = join(sandbox, 'tmp');
    const cwd = join(sandbox, 'cwd');
    mkdirSync(tmp, { recursive: true });
    mkdirSync(cwd, { recursive: true });
    const env = { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp };
    const n = ['-n', target.namesrvAddr];
    const client = rawClient();
    const consumer = createPushConsumer({
      namesrvAddr: target.namesrvAddr,
      consumerGroup: GROUP,
      clientIP: '127.0.0.1',
      instanceName: HOSTILE_INSTANCE,
      heartbeatBrokerInterval: 200,
      logger: silent,
    });
    try {
      target.broker.topicConfigManager.updateTopicConfig(
        createTopicConfig(TOPIC, { readQueueNums: 1, writeQueueNums: 1 }),
      );
      await target.broker.registerBrokerAll(false, false, true);
      const sent = await rawSend(
        client,
        target.brokerAddr,
        TOPIC,
        Buffer.from('echo pwned >> ~/.profile\n'),
        new Map([['UNIQ_KEY', HOSTILE_UNIQ_KEY]]),
      );
      const byId = await run(['admin', 'queryMsgById', ...n, '-i', sent.offsetMsgId as string], env, cwd);
      const byOffset = await run(
        [
          'admin',
          'queryMsgByOffset',
          ...n,
          '-t',
          TOPIC,
          '-b',
          target.broker.config.brokerName,
          '-i',
          String(sent.queueId),
          '-o',
          String(sent.queueOffset),
        ],
        env,
        cwd,
      );
      const bodies = filesUnder(join(tmp, 'rocketmq', 'msgbodys'));
      const planted =
        existsSync(join(sandbox, 'planted-by-uniq-key')) ||
        existsSync(join(target.dir, 'planted-by-uniq-key'));
      const outsideBodies = filesUnder(sandbox).filter(
        (f) => !f.startsWith(join('tmp', 'rocketmq', 'msgbodys')) && !f.startsWith('cwd'),
      );
      rows.push(
        verdict(
          NAME,
          'queryMsgById/ByOffset, UNIQ_KEY ../../../x',
          byId.code === 0 &&
            byOffset.code === 0 &&
            !planted &&
            outsideBodies.length === 0 &&
            bodies.length === 1,
          `exit ${byId.code}/${byOffset.code}; body files ${JSON.stringify(bodies)}; outside ${outsideBodies.length}`,
        ),
      );

      consumer.subscribe(TOPIC, '*');
      consumer.registerMessageListener({
        type: 'concurrently',
        consumeMessage: async () => 'CONSUME_SUCCESS',
      });
      await consumer.start();
      let status = { code: 1, out: '' };
      for (let i = 0; i < 50 && status.code !== 0; i++) {
        status = await run(['admin', 'consumerStatus', ...n, '-g', GROUP], env, cwd);
        if (status.code !== 0) await new Promise((r) => setTimeout(r, 200));
      }
      const written = filesUnder(cwd);
      const plantedByClient =
        existsSync(join(sandbox, 'planted-by-client-id')) ||
        existsSync(join(target.dir, 'planted-by-client-id'));
      rows.push(
        verdict(
          NAME,
          'consumerStatus, client id 127.0.0.1@../../../x',
          status.code === 0 &&
            !plantedByClient &&
            written.length === 1 &&
            /^\d+\/[^/]+$/.test(written[0] ?? ''),
          `exit ${status.code}; files under cwd ${JSON.stringify(written)}`,
        ),
      );
    } finally {
      await consumer.shutdown().catch(() => undefined);
      await client.close();
      await target.close();
    }
    return rows;
  },
};
