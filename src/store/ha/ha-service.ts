/**
 * HAService (upstream store/ha/HAService.java, 4.9.8): the HA listener that slaves connect to
 * (AcceptSocketService), SYNC_MASTER's wait for them (GroupTransferService) and, on a slave, the
 * client that follows the master (HAClient). The broker starts it once it knows its port (the HA
 * port is listenPort + 1, as BrokerStartup forces it) and, unlike upstream, opens the listener only
 * where its role needs one, behind the guard it plugs in (ha-gate.ts).
 *
 * Where upstream's write threads poll the commit log every 100 ms when idle, here every commit-log
 * write wakes the connections (CommitLog.addAppendListener), so ASYNC_MASTER replication starts in the
 * turn the data was written.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Clock } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { CommitLog } from '../commit-log.js';
import type { MessageStoreConfig } from '../config.js';
import { PutMessageStatus } from '../put-message-result.js';
import { GroupTransferService } from './group-transfer-service.js';
import { HAClient, type HAClientOptions, type HAClientTransport } from './ha-client.js';
import { HAConnection, type HAConnectionHost } from './ha-connection.js';
import { DEFAULT_HA_REFUSAL_LOG_INTERVAL, HAGate, type HAServerGuard } from './ha-gate.js';

export interface HAServiceOptions {
  clock: Clock;
  logger: Logger;
  /** The slave's reconnect interval [5000 ms]. */
  reconnectInterval?: number;
  /** See HAClientOptions.resetTo. */
  resetTo?: HAClientOptions['resetTo'];
  /** At most one refused-connection line per this many ms [1000]. */
  refusalLogIntervalMillis?: number;
}

/** What the broker plugs in before start (none: upstream's open port and plain TCP). */
export interface HATransport {
  /** TLS and the signed handshake on the listener. */
  guard?: HAServerGuard;
  /** How the slave connects to its master, and what it sends first. */
  client?: HAClientTransport;
}

export class HAService implements HAConnectionHost {
  readonly clock: Clock;
  readonly log: Logger;
  readonly groupTransferService: GroupTransferService;
  readonly haClient: HAClient;
  private readonly connections = new Set<HAConnection>();
  private server: Server | undefined;
  private boundPort: number | undefined;
  private readonly gate: HAGate;

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
    this.gate = new HAGate(
      this.clock,
      this.log,
      () => this.config.haHousekeepingInterval,
      options.refusalLogIntervalMillis ?? DEFAULT_HA_REFUSAL_LOG_INTERVAL,
      (stream, initial) => this.serve(stream, initial),
    );
    commitLog.addAppendListener(() => {
      for (const c of this.connections) c.pump();
    });
  }

  /** Plugs in TLS and the signed handshake; takes effect for connections made after it. */
  secure(transport: HATransport): void {
    if (transport.guard !== undefined) this.gate.guard = transport.guard;
    if (transport.client !== undefined) this.haClient.transport = transport.client;
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

  /**
   * Listens for slaves (upstream beginAccept) when `listen` is given, and starts the client, which
   * connects once it has an address. Returns the bound port (undefined without a listener).
   */
  start(listen: { port: number; host?: string }): Promise<number>;
  start(): Promise<undefined>;
  async start(listen?: { port: number; host?: string }): Promise<number | undefined> {
    if (listen !== undefined) await this.listen(listen);
    this.haClient.start();
    return this.boundPort;
  }

  private async listen(listen: { port: number; host?: string }): Promise<void> {
    const server = createServer({ noDelay: true }, (socket) => {
      this.log.info('HAService receive new connection', {
        remote: `${socket.remoteAddress}:${socket.remotePort}`,
      });
      this.gate.accept(socket);
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
  }

  private serve(stream: Socket, initial: Buffer | undefined): void {
    if (this.server === undefined) {
      stream.destroy();
      return;
    }
    const connection = new HAConnection(this, stream, initial);
    if (!connection.isClosed) this.connections.add(connection);
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
    this.gate.close();
    const server = this.server;
    this.server = undefined;
    if (server !== undefined) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
