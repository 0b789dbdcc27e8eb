/**
 * A name server and broker (startStandalone) in a child process that also answers questions about the
 * broker's tables: how many pulls it holds, connections it has, consumer and producer channels it
 * knows, its heap. The storm scenarios need those after their clients go, and upstream's admin bodies
 * (whose key sets official tools read) have no place for them. Start with `--expose-gc` for `gc`.
 *
 * argv: <dataDir> <broker settings as JSON>. Prints `{"ready":true,...}`, then answers each stdin line
 * (`stats`, `gc`: collect garbage first) with one JSON line; exits at end of input.
 */
import { createInterface } from 'node:readline';
import { createLogger } from '../../src/common/logger.js';
import { startStandalone } from '../../src/embedded/standalone.js';

export interface ProbeStats {
  heldPulls: number;
  connections: number;
  consumerGroups: number;
  consumerChannels: number;
  /** Consumer channels per group. */
  consumerChannelsByGroup: Record<string, number>;
  producerChannels: number;
  /** Connections whose reading is paused because the peer does not read its answers. */
  readPausedConnections: number;
  /** Bytes waiting in the broker's socket write buffers, all connections. */
  writeBuffered: number;
  heapUsed: number;
  rss: number;
}

async function main(): Promise<void> {
  const [dataDir, settings] = process.argv.slice(2);
  if (dataDir === undefined) throw new Error('usage: probe-broker <dataDir> [settings JSON]');
  const pair = await startStandalone({
    dataDir,
    namesrvPort: 0,
    host: '127.0.0.1',
    broker: {
      brokerIP1: '127.0.0.1',
      brokerIP2: '127.0.0.1',
      listenPort: 0,
      ...(settings === undefined ? {} : (JSON.parse(settings) as object)),
    },
    logger: createLogger('rmq', { level: 'error' }),
  });
  const broker = pair.broker;
  const stats = (): ProbeStats => {
    let consumerChannels = 0;
    const consumerChannelsByGroup: Record<string, number> = {};
    for (const [group, info] of broker.consumerManager.consumerTable) {
      consumerChannels += info.channelInfoTable.size;
      consumerChannelsByGroup[group] = info.channelInfoTable.size;
    }
    let producerChannels = 0;
    for (const channels of broker.producerManager.groupChannelTable.values())
      producerChannels += channels.size;
    let readPausedConnections = 0;
    let writeBuffered = 0;
    for (const server of [broker.remotingServer, broker.fastRemotingServer]) {
      for (const c of server.connections) {
        if (c.readPaused) readPausedConnections++;
        writeBuffered += c.stream.writableLength;
      }
    }
    const memory = process.memoryUsage();
    return {
      heldPulls: broker.pullRequestHoldService.heldCount,
      connections: broker.remotingServer.connections.size + broker.fastRemotingServer.connections.size,
      consumerGroups: broker.consumerManager.consumerTable.size,
      consumerChannels,
      consumerChannelsByGroup,
      producerChannels,
      readPausedConnections,
      writeBuffered,
      heapUsed: memory.heapUsed,
      rss: memory.rss,
    };
  };
  process.stdout.write(
    `${JSON.stringify({ ready: true, namesrvAddr: pair.namesrvAddr, brokerAddr: pair.brokerAddr })}\n`,
  );
  const gc = (globalThis as { gc?: () => void }).gc;
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'gc') {
      // Twice: the first pass finalizes what the second frees.
      gc?.();
      gc?.();
    }
    process.stdout.write(`${JSON.stringify(stats())}\n`);
  }
  await pair.close();
}

main().catch((error: unknown) => {
  process.stdout.write(
    `${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`,
  );
  process.exitCode = 1;
});
