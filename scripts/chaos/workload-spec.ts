/**
 * What a workload process is told to do, the same for our client (workload-child.ts) and the
 * official Java client (ChaosProducer / ChaosConsumer in interop/), and the command that starts it.
 * Both print HistoryEvent lines on stdout, a `{"ready":true}` line once started and, for a
 * producer, `{"done":true}` once every send it began has an outcome after stdin ends.
 */
import { fileURLToPath } from 'node:url';
import { javaSetup } from '../../test/interop/harness.js';

export type ClientSide = 'ours' | 'java';

export interface ProducerSpec {
  role: 'producer';
  namesrvAddr: string;
  topic: string;
  group: string;
  /** The `client` of its events and the prefix of its keys. */
  client: string;
  /** Sending loops, each one send at a time (for ordered sends: one shard each). */
  loops: number;
  /** Pause of a loop after each send, ms: the rate is loops × 1000 / (intervalMs + latency). */
  intervalMs: number;
  /** Each loop is a shard: its messages go to queue `loop % queues` via a selector, in sequence. */
  ordered: boolean;
  /** The client's pollNameServerInterval (upstream 30 s): how often routes are asked again. */
  pollNameServerInterval: number;
}

export interface ConsumerSpec {
  role: 'consumer';
  namesrvAddr: string;
  topic: string;
  group: string;
  client: string;
  /** Fixed, so that a restarted member keeps its client id (and its orderly queue locks). */
  instanceName: string;
  orderly: boolean;
  /**
   * The client's heartbeatBrokerInterval (upstream 30 s). A restarted broker knows a group only from
   * its next heartbeat and answers its pulls SUBSCRIPTION_NOT_EXIST until then, as upstream's does.
   */
  heartbeatBrokerInterval: number;
  pollNameServerInterval: number;
}

export type WorkloadSpec = ProducerSpec | ConsumerSpec;

/** Heap and JIT flags for start-up time: a workload JVM measures nothing. */
const JAVA_WORKLOAD_JVM = ['-Xms64m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'];

/** Positional arguments of the Java twins (their usage line lists them in this order). */
function javaArgs(spec: WorkloadSpec): string[] {
  const common = [spec.namesrvAddr, spec.topic, spec.group, spec.client];
  return spec.role === 'producer'
    ? [
        ...common,
        String(spec.loops),
        String(spec.intervalMs),
        String(spec.ordered),
        String(spec.pollNameServerInterval),
      ]
    : [
        ...common,
        spec.instanceName,
        String(spec.orderly),
        String(spec.heartbeatBrokerInterval),
        String(spec.pollNameServerInterval),
      ];
}

/** `[command, args]` that runs `spec` on `side`; `home` is the JVM's user.home (client logs). */
export function workloadCommand(side: ClientSide, spec: WorkloadSpec, home: string): [string, string[]] {
  if (side === 'ours') {
    const child = fileURLToPath(new URL('./workload-child.js', import.meta.url));
    return [process.execPath, [child, JSON.stringify(spec)]];
  }
  const setup = javaSetup();
  const main = spec.role === 'producer' ? 'ChaosProducer' : 'ChaosConsumer';
  return [
    'java',
    [
      ...setup.javaOpts,
      ...JAVA_WORKLOAD_JVM,
      `-Duser.home=${home}`,
      `-Drocketmq.client.logRoot=${home}/logs`,
      '-cp',
      setup.classpath,
      `org.rocketmqts.interop.${main}`,
      ...javaArgs(spec),
    ],
  ];
}
