/** mqadmin's broker housekeeping: cleanExpiredCQ, cleanUnusedTopic. */
import type { MQAdminExt } from '../../admin/mq-admin-ext.js';
import type { AdminCommand } from './command.js';

function cleanCommand(
  name: string,
  desc: string,
  clusterDesc: string,
  byAddr: (a: MQAdminExt, addr: string) => Promise<boolean>,
  byCluster: (a: MQAdminExt, cluster: string | undefined) => Promise<boolean>,
): AdminCommand {
  return {
    name,
    desc,
    read: false,
    options: [
      { short: 'b', long: 'brokerAddr', arg: true, desc: 'Broker address' },
      { short: 'c', long: 'cluster', arg: true, desc: clusterDesc },
    ],
    async run({ opts, io, admin, setExitCode }) {
      const a = await admin();
      const addr = opts.text('brokerAddr');
      const ok = addr !== undefined ? await byAddr(a, addr) : await byCluster(a, opts.text('cluster'));
      // Upstream prints no newline after either word.
      io.out(ok ? 'success' : 'false');
      if (!ok) setExitCode(1);
    },
  };
}

export const cleanExpiredCQ = cleanCommand(
  'cleanExpiredCQ',
  'Clean expired ConsumeQueue on broker.',
  'clustername',
  (a, addr) => a.cleanExpiredConsumerQueueByAddr(addr),
  (a, cluster) => a.cleanExpiredConsumerQueue(cluster),
);

export const cleanUnusedTopic = cleanCommand(
  'cleanUnusedTopic',
  'Clean unused topic on broker.',
  'cluster name',
  (a, addr) => a.cleanUnusedTopicByAddr(addr),
  (a, cluster) => a.cleanUnusedTopic(cluster),
);
