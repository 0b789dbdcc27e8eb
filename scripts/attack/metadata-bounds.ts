/**
 * 'metadata-bounds' (issue 26, point 8): sends to ever new topic names (auto-create on, as in
 * `rmq start`) and unsigned PUT_KV_CONFIG puts, against `rmq start` in a child process on 127.0.0.1.
 * Held when topics stop at autoCreateTopicMaxCount (the rest refused with TOPIC_NOT_EXIST naming
 * it) while the broker's RSS stays within RSS_BOUND_MIB of its start, and when a big KV value and a
 * table past kvConfigMaxTotalSize are refused naming their limits.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../src/common/logger.js';
import type { RemotingCommand } from '../../src/remoting/protocol/command.js';
import { RemotingClient } from '../../src/remoting/transport/index.js';
import { removeTempDir, rssMiB, startOurs, tempDir } from '../bench-support.js';
import type { AttackClass, AttackOptions, AttackVerdict } from './attack-class.js';
import { putKVConfig, sendToTopic } from './raw-requests.js';

const NAME = 'metadata-bounds';
/** RSS growth the auto-create flood may cause, MiB. */
const RSS_BOUND_MIB = 256;
const TOPIC_NOT_EXIST = 17;
const quiet = createLogger('attack', { level: 'silent' });

/** Sends `requests` with `concurrency` in flight on one connection; the answers in order. */
async function pipelined(
  client: RemotingClient,
  addr: string,
  requests: Array<() => RemotingCommand>,
  concurrency: number,
): Promise<RemotingCommand[]> {
  const answers: RemotingCommand[] = new Array(requests.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < requests.length; i = next++) {
      answers[i] = await client.invoke(addr, (requests[i] as () => RemotingCommand)(), { timeoutMs: 10_000 });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return answers;
}

export const metadataBounds: AttackClass = {
  name: NAME,
  async run(options: AttackOptions): Promise<AttackVerdict[]> {
    const limit = options.short ? 500 : 5000;
    const attempts = limit + (options.short ? 300 : 1000);
    const confDir = tempDir('rmq-attack-meta-conf-');
    const conf = join(confDir, 'broker.conf');
    writeFileSync(conf, `autoCreateTopicMaxCount=${limit}\n`);
    const ours = await startOurs({ dirPrefix: 'rmq-attack-meta-', startArgs: ['-c', conf] });
    const client = new RemotingClient({}, { logger: quiet });
    try {
      const verdicts: AttackVerdict[] = [];
      const rssStart = rssMiB(ours.brokerPid);
      const run = `${Date.now().toString(36)}`;
      const floodStart = Date.now();
      const answers = await pipelined(
        client,
        ours.brokerAddr,
        Array.from({ length: attempts }, (_, i) => () => sendToTopic(`Flood_${run}_${i}`)),
        16,
      );
      const created = answers.filter((a) => a.code === 0).length;
      const refused = answers.filter(
        (a) => a.code === TOPIC_NOT_EXIST && /autoCreateTopicMaxCount/.test(a.remark ?? ''),
      ).length;
      const rssGrowth = rssMiB(ours.brokerPid) - rssStart;
      verdicts.push({
        attack: NAME,
        case: `${attempts} sends to new topics (limit ${limit})`,
        verdict: created + refused === attempts && created < limit && refused > 0 ? 'held' : 'breached',
        figure: `${created} created, ${refused} refused naming autoCreateTopicMaxCount (${((Date.now() - floodStart) / 1000).toFixed(1)} s)`,
      });
      verdicts.push({
        attack: NAME,
        case: 'RSS during the auto-create flood',
        verdict: rssStart > 0 && rssGrowth < RSS_BOUND_MIB ? 'held' : 'breached',
        figure: `RSS ${rssStart.toFixed(0)} -> +${rssGrowth.toFixed(0)} MiB (bound ${RSS_BOUND_MIB} MiB)`,
      });
      const big = await client.invoke(ours.namesrvAddr, putKVConfig('attack', 'big', 'v'.repeat(1 << 20)), {
        timeoutMs: 10_000,
      });
      verdicts.push({
        attack: NAME,
        case: 'PUT_KV_CONFIG of a 1 MiB value',
        verdict: big.code !== 0 && /kvConfigMaxEntrySize/.test(big.remark ?? '') ? 'held' : 'breached',
        figure: `code ${big.code}: ${(big.remark ?? '').slice(0, 60)}`,
      });
      // 60 KiB each, under the entry limit, 16 in flight: the table limit (16 MiB) must stop them.
      const value = 'v'.repeat(60 * 1024);
      const puts = await pipelined(
        client,
        ours.namesrvAddr,
        Array.from({ length: 400 }, (_, i) => () => putKVConfig('attack', `k${i}`, value)),
        16,
      );
      const accepted = puts.filter((r) => r.code === 0).length;
      const stop = puts.find((r) => r.code !== 0);
      const stored = (accepted * (value.length + 10)) / (1 << 20);
      verdicts.push({
        attack: NAME,
        case: 'PUT_KV_CONFIG of 60 KiB values, 400 keys',
        verdict: stop !== undefined && /kvConfigMaxTotalSize/.test(stop.remark ?? '') ? 'held' : 'breached',
        figure: `${accepted} accepted (${stored.toFixed(1)} MiB), then code ${stop?.code ?? 'none'}`,
      });
      return verdicts;
    } finally {
      await client.close();
      await ours.close();
      removeTempDir(confDir);
    }
  },
};
