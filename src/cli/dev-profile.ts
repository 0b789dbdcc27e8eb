/**
 * `rmq start`'s development profile: the few broker settings that differ from upstream's defaults so
 * that a newcomer's first consumer works (SQL92 subscriptions, topics and groups created on first use)
 * and keeps working when the laptop changes networks (the broker announces loopback). A broker.conf
 * or a flag that names a key wins over the profile; `rmq broker` does not use it at all.
 */
import type { BrokerConfigOverrides } from '../broker/broker-config.js';
import { localAddress } from '../common/platform/local-address.js';

/** What the profile sets whatever the command line says about addresses. */
export const DEV_PROFILE: Readonly<
  Required<
    Pick<
      BrokerConfigOverrides,
      'enablePropertyFilter' | 'autoCreateTopicEnable' | 'autoCreateSubscriptionGroup'
    >
  >
> = Object.freeze({
  enablePropertyFilter: true,
  autoCreateTopicEnable: true,
  autoCreateSubscriptionGroup: true,
});

/** The address the broker announces when neither broker.conf nor --broker-ip names one. */
export const DEV_BROKER_IP = '127.0.0.1';

/**
 * Where the name server, broker and VIP channel listen without `--host`: loopback, since the name
 * server takes any registration and KV put unless its ACL is on (docs/security.md). `rmq broker` and
 * `rmq namesrv` keep upstream's every interface.
 */
export const DEV_LISTEN_HOST = '127.0.0.1';

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

/**
 * brokerIP1 for `--host`: loopback by default; the host itself when it names one address; upstream's
 * default (the first non-loopback address) when it asks for every interface, since clients on other
 * machines are then the point.
 */
export function devBrokerIP(
  host: string | undefined,
  lookupLocalAddress: () => string = localAddress,
): string {
  if (host === undefined) return DEV_BROKER_IP;
  return isWildcard(host) ? lookupLocalAddress() : host;
}

export interface StartOverridesInput {
  /** Keys the broker.conf sets (they win over the profile). */
  fileKeys: ReadonlySet<string>;
  /** Settings from flags (they win over everything). */
  flags: BrokerConfigOverrides;
  /** `--host`. */
  host?: string | undefined;
  lookupLocalAddress?: () => string;
}

/** The overrides `rmq start` applies over upstream's defaults: profile, then broker.conf, then flags. */
export function startBrokerOverrides(input: StartOverridesInput): BrokerConfigOverrides {
  const profile: BrokerConfigOverrides = {};
  for (const [key, value] of Object.entries(DEV_PROFILE)) {
    if (!input.fileKeys.has(key)) (profile as Record<string, unknown>)[key] = value;
  }
  const ip = devBrokerIP(input.host, input.lookupLocalAddress);
  if (!input.fileKeys.has('brokerIP1')) profile.brokerIP1 = ip;
  // The HA address follows, so nothing the broker registers names an address that may go away.
  if (!input.fileKeys.has('brokerIP2')) profile.brokerIP2 = input.flags.brokerIP1 ?? ip;
  // No slave follows a development broker: its HA port stays closed (ASYNC_MASTER, totalReplicas=1),
  // and should a broker.conf open it, it is reachable from this machine only.
  if (!input.fileKeys.has('haListenHost')) profile.haListenHost = DEV_BROKER_IP;
  const flags: BrokerConfigOverrides = {};
  for (const [key, value] of Object.entries(input.flags)) {
    if (value !== undefined) (flags as Record<string, unknown>)[key] = value;
  }
  return { ...profile, ...flags };
}

/** One line saying what the profile changed, as the banner prints it. */
export function describeProfile(config: {
  enablePropertyFilter: boolean;
  autoCreateTopicEnable: boolean;
  autoCreateSubscriptionGroup: boolean;
  brokerIP1: string;
}): string {
  const sql = config.enablePropertyFilter ? 'SQL92 filters on' : 'SQL92 filters off';
  const topics = config.autoCreateTopicEnable ? 'on' : 'off';
  const groups = config.autoCreateSubscriptionGroup ? 'on' : 'off';
  return `${sql}, auto-create topics ${topics}, groups ${groups}, announced as ${config.brokerIP1}`;
}
