/**
 * Our name server and broker as two child processes of our CLI (`rmq namesrv`, `rmq broker`), on
 * loopback ports chosen once, so that a restarted process comes back at the same address with the
 * same data dir. The faults act on the processes: SIGKILL, SIGSTOP/SIGCONT, restart.
 */
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freeBrokerPorts } from '../../test/interop/harness.js';
import { rmqCommand, spawnTracked, stopped } from '../bench-support.js';

export type FlushDiskType = 'ASYNC_FLUSH' | 'SYNC_FLUSH';

/** How long a process may take to print its boot line. */
export const BOOT_TIMEOUT_MS = 30_000;
/** SIGTERM grace before SIGKILL when the cluster is stopped. */
export const STOP_GRACE_MS = 10_000;
/**
 * The broker's registration period: upstream's default is 30 s and its floor 10 s; the floor keeps
 * a restarted name server's routes coming back within a short run.
 */
export const REGISTER_NAME_SERVER_PERIOD_MS = 10_000;
export const BROKER_NAME = 'chaos-broker';
export const CLUSTER_NAME = 'ChaosCluster';

export interface ClusterOptions {
  /** Holds broker.conf and the store (`<dir>/store`). */
  dir: string;
  flushDiskType: FlushDiskType;
  /** Extra broker.conf lines. */
  brokerConfig?: Readonly<Record<string, string | number | boolean>>;
}

type Role = 'namesrv' | 'broker';

export class Cluster {
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  private readonly procs = new Map<Role, ChildProcess>();
  private readonly confFile: string;
  private readonly storeDir: string;

  private constructor(
    private readonly options: ClusterOptions,
    private readonly namesrvPort: number,
    private readonly brokerPort: number,
  ) {
    this.namesrvAddr = `127.0.0.1:${namesrvPort}`;
    this.brokerAddr = `127.0.0.1:${brokerPort}`;
    this.confFile = join(options.dir, 'broker.conf');
    this.storeDir = join(options.dir, 'store');
  }

  static async start(options: ClusterOptions): Promise<Cluster> {
    mkdirSync(options.dir, { recursive: true });
    const namesrvPort = (await freeBrokerPorts()).port;
    let brokerPort = (await freeBrokerPorts()).port;
    while (Math.abs(brokerPort - namesrvPort) <= 2) brokerPort = (await freeBrokerPorts()).port;
    const cluster = new Cluster(options, namesrvPort, brokerPort);
    cluster.writeConf();
    try {
      await cluster.startNamesrv();
      await cluster.startBroker();
    } catch (error) {
      await cluster.close();
      throw error;
    }
    return cluster;
  }

  private writeConf(): void {
    const conf: Record<string, string | number | boolean> = {
      brokerClusterName: CLUSTER_NAME,
      brokerName: BROKER_NAME,
      brokerId: 0,
      brokerIP1: '127.0.0.1',
      flushDiskType: this.options.flushDiskType,
      autoCreateTopicEnable: true,
      registerNameServerPeriod: REGISTER_NAME_SERVER_PERIOD_MS,
      ...this.options.brokerConfig,
    };
    writeFileSync(
      this.confFile,
      `${Object.entries(conf)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join('\n')}\n`,
    );
  }

  pid(role: Role): number | undefined {
    return this.procs.get(role)?.pid;
  }

  async startNamesrv(): Promise<void> {
    await this.spawn('namesrv', ['namesrv', '-p', String(this.namesrvPort), '--host', '127.0.0.1']);
  }

  async startBroker(): Promise<void> {
    await this.spawn('broker', [
      'broker',
      '-c',
      this.confFile,
      '-n',
      this.namesrvAddr,
      '-p',
      String(this.brokerPort),
      '-d',
      this.storeDir,
      '--host',
      '127.0.0.1',
    ]);
  }

  private async spawn(role: Role, args: string[]): Promise<void> {
    if (this.procs.has(role)) throw new Error(`${role} is already running`);
    const child = spawnTracked(process.execPath, [...rmqCommand(), ...args], 'ignore');
    this.procs.set(role, child);
    child.once('exit', () => {
      if (this.procs.get(role) === child) this.procs.delete(role);
    });
    let stderr = '';
    // Kept next to the data dir (with --keep) for a failure's cause.
    const logFile = join(this.options.dir, `${role}.log`);
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000);
      appendFileSync(logFile, d);
    });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${role}: no boot line in ${BOOT_TIMEOUT_MS} ms\n${stderr}`));
      }, BOOT_TIMEOUT_MS);
      child.stdout?.setEncoding('utf8').on('data', (d: string) => {
        if (out.includes('boot success')) return;
        out += d;
        if (out.includes('boot success')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${role} exited (${code ?? signal}) before booting\n${stderr}`));
      });
    });
  }

  /** SIGKILL: no flush, no unregister; resolves once the process is gone. */
  async kill(role: Role): Promise<void> {
    const child = this.procs.get(role);
    if (child === undefined) return;
    child.kill('SIGKILL');
    await stopped(child, STOP_GRACE_MS);
  }

  pause(role: Role): void {
    this.procs.get(role)?.kill('SIGSTOP');
  }

  resume(role: Role): void {
    this.procs.get(role)?.kill('SIGCONT');
  }

  async restart(role: Role): Promise<void> {
    if (role === 'namesrv') await this.startNamesrv();
    else await this.startBroker();
  }

  /** Graceful: the broker first (it flushes and unregisters), then the name server. */
  async close(): Promise<void> {
    for (const role of ['broker', 'namesrv'] as const) {
      const child = this.procs.get(role);
      if (child === undefined) continue;
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await stopped(child, STOP_GRACE_MS);
    }
  }
}
