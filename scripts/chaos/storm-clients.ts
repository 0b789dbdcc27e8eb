/**
 * Raw remoting connections for the storm scenarios: each says HEART_BEAT as a consumer of a group and
 * then sends long-polling PULL_MESSAGE requests (suspend flag, at the queue's end) that the broker
 * holds. Far cheaper than a client instance per connection, so a thousand fit in the runner.
 */
import { connect, type Socket } from 'node:net';
import { buildPullMessageRequest } from '../../src/client/instance/requests/pull-message.js';
import { PullSysFlag } from '../../src/common/constants.js';
import { encodeHeartbeatData } from '../../src/common/protocol/heartbeat-data.js';
import { createRequest, isResponse, type RemotingCommand } from '../../src/remoting/protocol/command.js';
import { decodeFrame, encodeFrame } from '../../src/remoting/protocol/frame.js';
import { FrameSplitter } from '../../src/remoting/protocol/frame-splitter.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';

/** Connections opened at once (the rest wait), so the listen backlog is never the limit. */
const CONNECT_BATCH = 100;

export interface StormOptions {
  /** host:port of the broker. */
  brokerAddr: string;
  connections: number;
  pullsPerConnection: number;
  topic: string;
  /** Queue ids to spread pulls over, with the offset to pull at (the queue's end, so they are held). */
  queues: ReadonlyArray<{ queueId: number; offset: bigint }>;
  /** Connections share this many consumer groups (group i % groups). */
  groups: number;
  /** How long the broker may hold each pull. */
  suspendTimeoutMillis: number;
}

export class Storm {
  private readonly sockets: Socket[] = [];
  /** Responses per code, for the report (held pulls answer only when released). */
  readonly responses = new Map<number, number>();

  get open(): number {
    return this.sockets.filter((s) => !s.destroyed).length;
  }

  static async start(options: StormOptions): Promise<Storm> {
    const storm = new Storm();
    const [host, port] = options.brokerAddr.split(':') as [string, string];
    for (let base = 0; base < options.connections; base += CONNECT_BATCH) {
      const batch = Math.min(CONNECT_BATCH, options.connections - base);
      await Promise.all(
        Array.from({ length: batch }, (_, j) => storm.connectOne(host, Number(port), base + j, options)),
      );
    }
    return storm;
  }

  private connectOne(host: string, port: number, index: number, options: StormOptions): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      this.sockets.push(socket);
      const splitter = new FrameSplitter();
      socket.on('data', (chunk: Buffer) => {
        splitter.push(chunk, (payload) => {
          const cmd = decodeFrame(payload);
          if (isResponse(cmd)) this.responses.set(cmd.code, (this.responses.get(cmd.code) ?? 0) + 1);
        });
      });
      socket.on('error', () => {
        // A reset at close; the figures say what was answered.
      });
      socket.once('connect', () => {
        const group = `chaos-storm-${index % options.groups}`;
        const clientID = `127.0.0.1@storm-${index}`;
        const frames: Buffer[] = [];
        let opaque = 1;
        const add = (cmd: RemotingCommand): void => {
          cmd.opaque = opaque++;
          frames.push(encodeFrame(cmd));
        };
        add(
          createRequest(RequestCode.HEART_BEAT, {
            body: encodeHeartbeatData({
              clientID,
              producerDataSet: [],
              consumerDataSet: [
                {
                  groupName: group,
                  consumeType: 'CONSUME_PASSIVELY',
                  messageModel: 'CLUSTERING',
                  consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
                  subscriptionDataSet: [
                    {
                      topic: options.topic,
                      subString: '*',
                      tagsSet: [],
                      codeSet: [],
                      subVersion: BigInt(Date.now()),
                      expressionType: 'TAG',
                      classFilterMode: false,
                    },
                  ],
                  unitMode: false,
                },
              ],
            }),
          }),
        );
        for (let p = 0; p < options.pullsPerConnection; p++) {
          const q = options.queues[(index + p) % options.queues.length]!;
          add(
            buildPullMessageRequest({
              consumerGroup: group,
              topic: options.topic,
              queueId: q.queueId,
              queueOffset: q.offset,
              maxMsgNums: 32,
              sysFlag: PullSysFlag.buildSysFlag(false, true, true, false),
              commitOffset: 0n,
              suspendTimeoutMillis: BigInt(options.suspendTimeoutMillis),
              subscription: '*',
              subVersion: BigInt(Date.now()),
              expressionType: 'TAG',
            }),
          );
        }
        socket.write(Buffer.concat(frames), (error) => (error ? reject(error) : resolve()));
      });
      socket.once('error', reject);
    });
  }

  /** Answers received with `code`. */
  answered(code: number): number {
    return this.responses.get(code) ?? 0;
  }

  /** Closes every connection, as clients that go away. */
  async close(): Promise<void> {
    await Promise.all(
      this.sockets.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (s.destroyed) return resolve();
            s.once('close', () => resolve());
            s.destroy();
          }),
      ),
    );
  }
}

export interface SlowReaderOptions {
  brokerAddr: string;
  group: string;
  /** Pulls that find messages (no suspend), `batch` apart from `from` in each queue. */
  backlog: { topic: string; queues: ReadonlyArray<{ queueId: number; from: bigint }>; pulls: number };
  /** Long-polling pulls at the end of a busy topic: every send answers them. */
  held: { topic: string; queues: ReadonlyArray<{ queueId: number; offset: bigint }>; pulls: number };
  suspendTimeoutMillis: number;
}

const PULL_BATCH = 32;

function pullRequest(
  group: string,
  topic: string,
  queueId: number,
  offset: bigint,
  suspendTimeoutMillis: number,
): RemotingCommand {
  return buildPullMessageRequest({
    consumerGroup: group,
    topic,
    queueId,
    queueOffset: offset,
    maxMsgNums: PULL_BATCH,
    sysFlag: PullSysFlag.buildSysFlag(false, suspendTimeoutMillis > 0, true, false),
    commitOffset: 0n,
    suspendTimeoutMillis: BigInt(suspendTimeoutMillis),
    subscription: '*',
    subVersion: BigInt(Date.now()),
    expressionType: 'TAG',
  });
}

/**
 * A consumer that asks and never reads: it sends its pulls and stops reading its socket, so what the
 * broker answers piles up in the broker's write buffer for that connection.
 */
export async function startSlowReader(options: SlowReaderOptions): Promise<Socket> {
  const [host, port] = options.brokerAddr.split(':') as [string, string];
  const socket = connect({ host, port: Number(port) });
  socket.on('error', () => {
    // A reset at close.
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.pause();
  const frames: Buffer[] = [];
  let opaque = 1;
  const add = (cmd: RemotingCommand): void => {
    cmd.opaque = opaque++;
    frames.push(encodeFrame(cmd));
  };
  const { backlog, held } = options;
  // Held first: the broker stops reading this connection once the backlog answers pile up.
  for (let i = 0; i < held.pulls; i++) {
    const q = held.queues[i % held.queues.length]!;
    add(pullRequest(options.group, held.topic, q.queueId, q.offset, options.suspendTimeoutMillis));
  }
  for (let i = 0; i < backlog.pulls; i++) {
    const q = backlog.queues[i % backlog.queues.length]!;
    const nth = BigInt(Math.floor(i / backlog.queues.length) * PULL_BATCH);
    add(pullRequest(options.group, backlog.topic, q.queueId, q.from + nth, 0));
  }
  // Not waiting for the write: once the broker stops reading, the rest stays in our buffer.
  socket.write(Buffer.concat(frames));
  return socket;
}
