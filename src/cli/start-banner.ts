/**
 * What `rmq start` prints once both servers listen: one screen with the addresses, the data
 * directory, the profile and how to point a client at it. Scripts parse the `name server` and
 * `broker` lines (scripts/bench-support.ts and others: /name server\s+(\S+)/ and
 * /broker\s+(\d+\.\d+\.\d+\.\d+:\d+)/), so those two lines keep their layout and come first.
 */

export interface StartBannerInfo {
  startedInMs: number;
  namesrvAddr: string;
  brokerAddr: string;
  clusterName: string;
  brokerName: string;
  dataDir: string;
  /** describeProfile's line. */
  profile: string;
  /** The address the name server, broker and VIP channel listen on (`--host`). */
  listenHost?: string | undefined;
  /**
   * The web dashboard's URL when the process serves one (dashboardPort); its line is left out
   * otherwise. The dashboard server sets this; the banner only prints it.
   */
  dashboardUrl?: string | undefined;
  /** Prometheus' scrape URL when served on a port of its own (metricsPort). */
  metricsUrl?: string | undefined;
}

const label = (name: string): string => `  ${name.padEnd(12)} `;

function listeningLine(host: string): string {
  if (host === '127.0.0.1' || host === '::1' || host === 'localhost') {
    return `${host} only (--host 0.0.0.0 to accept other machines; see docs/security.md first)`;
  }
  return `${host} (anyone who reaches it may register brokers and put KV config unless the name server ACL is on)`;
}

export function formatStartBanner(info: StartBannerInfo): string {
  const ns = info.namesrvAddr;
  const lines = [
    `rocketmq-ts started in ${info.startedInMs} ms (development profile; rmq broker keeps upstream's defaults)`,
    `${label('name server')}${ns}`,
    `${label('broker')}${info.brokerAddr} (cluster ${info.clusterName}, name ${info.brokerName})`,
    `${label('data')}${info.dataDir}`,
  ];
  if (info.listenHost !== undefined) lines.push(`${label('listening')}${listeningLine(info.listenHost)}`);
  if (info.dashboardUrl !== undefined) lines.push(`${label('dashboard')}${info.dashboardUrl}`);
  if (info.metricsUrl !== undefined) lines.push(`${label('metrics')}${info.metricsUrl}`);
  lines.push(
    `${label('profile')}${info.profile}`,
    '',
    'Point a client at it (rocketmq-ts, the Java client and mqadmin all read NAMESRV_ADDR):',
    `${label('shell')}export NAMESRV_ADDR=${ns}`,
    `${label('Node')}createProducer({ namesrvAddr: '${ns}', producerGroup: 'my_group' })`,
    `${label('Java')}producer.setNamesrvAddr("${ns}");`,
    `${label('')}or java -Drocketmq.namesrv.addr=${ns} ...`,
    `${label('admin')}rmq admin clusterList -n ${ns}`,
    'Ctrl-C stops both (flushes the store, persists offsets, unregisters).',
    '',
  );
  return lines.join('\n');
}
