/**
 * HAService (upstream store/ha/HAService.java, 4.9.8): on every broker, the HA listener that slaves
 * connect to (AcceptSocketService), SYNC_MASTER's wait for them (GroupTransferService) and, on a
 * slave, the client that follows the master (HAClient). The broker starts it once it knows its port:
 * the HA port is listenPort + 1, as BrokerStartup forces it.
 *
 * Where upstream's write threads poll the commit log every 100 ms when idle, here every commit-log
 * write wakes the connections (CommitLog.addAppendListener), so ASYNC_MASTER replication starts in the
 * turn the data was written.
 */
import { createServer, type Server } from 'node:net';
import type { Clock } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { CommitLog } from '../commit-log.js';
import type { MessageStoreConfig } from '../config.js';
import { PutMessageStatus } from '../put-message-result.js';
import { GroupTransferService } from './group-transfer-service.js';
import { HAClient, type HAClientOptions } from './ha-client.js';
import { HAConnection, type HAConnectionHost } from './ha-connection.js';

export interface HAServiceOptions {
  clock: Clock;
  logger: Logger;
  /** The slave's reconnect interval [5000 ms]. */
  reconnectInterval?: number;
  /** See HAClientOptions.resetTo. */
  resetTo?: HAClientOptions['resetTo'];
}

export class HAService implements HAConnectionHost {
  readonly clock: Clock;
  readonly log: Logger;
  readonly groupTransferService: GroupTransferService;
  readonly haClient: HAClient;
  private readonly connections = new Set<HAConnection>();
  private server: Server | undefined;
  private boundPort: number | undefined;

  constructor(
    readonly commitLog: CommitLog,
    readonly config: MessageStoreConfig,
    options: HAServiceOptions,
  ) {
    this.clock = options.clock;
    this.log = options.logger;
    this.groupTransferService = new GroupTransferService(this.clock);
    this.haClient = new HAClient(commitLog, config, {
      clock: this.clock,
      logger: this.log.child('client'),
      ...(options.reconnectInterval === undefined ? {} : { reconnectInterval: options.reconnectInterval }),
      ...(options.resetTo === undefined ? {} : { resetTo: options.resetTo }),
    });
    commitLog.addAppendListener(() => {
      for (const c of this.connections) c.pump();
    });
  }

  /** The HA port once listening. */
  get port(): number | undefined {
    return this.boundPort;
  }

  /** Slaves connected (upstream connectionCount), whether or not they have reported yet. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** The highest offset any slave has acknowledged. */
  get push2SlaveMaxOffset(): number {
    return this.groupTransferService.push2SlaveMaxOffset;
  }

  /** Listens for slaves (upstream beginAccept) and starts the client, which connects once it has an address. */
  async start(listen: { port: number; host?: string }): Promise<number> {
    const server = createServer({ noDelay: true }, (socket) => {
      this.log.info('HAService receive new connection', {
        remote: `${socket.remoteAddress}:${socket.remotePort}`,
      });
      this.connections.add(new HAConnection(this, socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(
        { port: listen.port, ...(listen.host === undefined ? {} : { host: listen.host }) },
        () => {
          server.off('error', reject);
          resolve();
        },
      );
    });
    server.on('error', (err) => this.log.error('HA listener failed', { error: err.message }));
    this.server = server;
    const address = server.address();
    this.boundPort = typeof address === 'object' && address !== null ? address.port : listen.port;
    this.haClient.start();
    return this.boundPort;
  }

  /** Upstream updateMasterAddress (slaves: from haMasterAddress or the name server's registration result). */
  updateMasterAddress(addr: string | undefined): void {
    this.haClient.updateMasterAddress(addr);
  }

  /**
   * Upstream isSlaveOK: a slave is connected and the best one is less than haSlaveFallbehindMax
   * behind `masterPutWhere`. Ours counts only slaves that have said where they are, so a connection
   * that never reports does not make SYNC_MASTER wait.
   */
  isSlaveOK(masterPutWhere: number): boolean {
    let reported = false;
    for (const c of this.connections) {
      if (c.slaveRequestOffset >= 0) {
        reported = true;
        break;
      }
    }
    return reported && masterPutWhere - this.push2SlaveMaxOffset < this.config.haSlaveFallbehindMax;
  }

  /**
   * SYNC_MASTER's part of an append ending at `nextOffset` (upstream submitReplicaRequest): PUT_OK
   * once a slave has it, FLUSH_SLAVE_TIMEOUT after slaveTimeout, SLAVE_NOT_AVAILABLE at once when no
   * slave can be waited for.
   */
  waitForSlave(nextOffset: number): Promise<PutMessageStatus> {
    if (!this.isSlaveOK(nextOffset)) return Promise.resolve(PutMessageStatus.SLAVE_NOT_AVAILABLE);
    return this.groupTransferService.waitFor(nextOffset, this.config.slaveTimeout);
  }

  notifyTransferSome(offset: number): void {
    this.groupTransferService.notifyTransferSome(offset);
  }

  removeConnection(connection: HAConnection): void {
    this.connections.delete(connection);
  }

  async shutdown(): Promise<void> {
    this.haClient.shutdown();
    for (const c of [...this.connections]) c.close(undefined, 'info');
    this.connections.clear();
    this.groupTransferService.shutdown();
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
