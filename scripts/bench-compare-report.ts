/**
 * bench-compare's output: the one markdown table (a row per scenario, generator and broker, and an
 * ours/official row under each pair), the run's setting (date, versions, machine, command), and
 * docs/benchmarks.md, whose generated part below a marker line each run rewrites.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { javaSetup } from '../test/interop/harness.js';
import type { Generator } from './bench-compare-load.js';
import { type BrokerKind, javaVersion } from './bench-support.js';

export interface Row {
  readonly scenario: string;
  readonly generator: Generator;
  readonly broker: BrokerKind;
  readonly tps?: number;
  /** producer: send RT; consumer: store-to-consume latency */
  readonly avgMs?: number;
  readonly p99Ms?: number;
  readonly maxMs?: number;
  readonly cpuPer100k?: number;
  readonly peakRssMiB?: number;
  readonly peakAnonMiB?: number;
  readonly startMs?: number;
  readonly error?: string;
}

const HEADER = [
  'scenario',
  'generator',
  'broker',
  'TPS',
  'avg / p99 / max RT ms (consume: S2C)',
  'broker CPU s / 100k msgs',
  'broker peak RSS (anon) MiB',
  'start ms',
];

const BROKER_LABEL: Record<BrokerKind, string> = { official: 'official', ours: 'ours' };
const GENERATOR_LABEL: Record<Generator, string> = { java: 'Java (4.9.8 client)', rmq: 'rmq bench' };

function fixed(v: number | undefined, digits: number): string {
  return v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits);
}

function ms(v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return '–';
  return v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0);
}

function count(v: number | undefined): string {
  return v === undefined || !Number.isFinite(v) ? '–' : Math.round(v).toLocaleString('en-US');
}

function ratio(ours: number | undefined, official: number | undefined): string {
  if (ours === undefined || official === undefined || !(official > 0) || !Number.isFinite(ours)) return '–';
  return `**${(ours / official).toFixed(2)}**`;
}

function cells(row: Row): string[] {
  const head = [row.scenario, GENERATOR_LABEL[row.generator], BROKER_LABEL[row.broker]];
  if (row.error !== undefined) return [...head, `failed: ${row.error.split('\n')[0]}`, '', '', '', ''];
  return [
    ...head,
    count(row.tps),
    `${ms(row.avgMs)} / ${ms(row.p99Ms)} / ${ms(row.maxMs)}`,
    fixed(row.cpuPer100k, 2),
    `${fixed(row.peakRssMiB, 0)} (${fixed(row.peakAnonMiB, 0)})`,
    fixed(row.startMs, 0),
  ];
}

function line(values: readonly string[]): string {
  return `| ${values.map((v) => v.replaceAll('|', '\\|')).join(' | ')} |`;
}

/**
 * The table: a pair of rows per scenario (in run order) and generator (Java first, whichever ran
 * first), official above ours, then their ratio.
 */
export function table(rows: readonly Row[]): string {
  const out = [line(HEADER), line(HEADER.map(() => '---'))];
  const scenarios = [...new Set(rows.map((r) => r.scenario))];
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const key = `${r.scenario}\u0000${r.generator}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const rank = (r: Row): number => scenarios.indexOf(r.scenario) * 2 + (r.generator === 'java' ? 0 : 1);
  const ordered = [...groups.values()].sort((a, b) => rank(a[0] as Row) - rank(b[0] as Row));
  for (const group of ordered) {
    const official = group.find((r) => r.broker === 'official');
    const ours = group.find((r) => r.broker === 'ours');
    for (const r of [official, ours]) if (r !== undefined) out.push(line(cells(r)));
    if (official?.error === undefined && ours?.error === undefined && official && ours) {
      out.push(
        line([
          '',
          '',
          'ours/official',
          ratio(ours.tps, official.tps),
          `p99 ${ratio(ours.p99Ms, official.p99Ms)}`,
          ratio(ours.cpuPer100k, official.cpuPer100k),
          ratio(ours.peakRssMiB, official.peakRssMiB),
          ratio(ours.startMs, official.startMs),
        ]),
      );
    }
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// where and with what it ran

function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'interop', 'pom.xml'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('bench-compare: cannot find the project root');
    dir = parent;
  }
}

function procField(file: string, pattern: RegExp): string {
  try {
    return pattern.exec(readFileSync(file, 'utf8'))?.[1]?.trim() ?? '?';
  } catch {
    return '?';
  }
}

function jarVersion(artifact: string): string {
  try {
    return new RegExp(`${artifact}-([\\w.-]+?)\\.jar`).exec(javaSetup().classpath)?.[1] ?? '?';
  } catch {
    return '?';
  }
}

export function setting(): string[] {
  const root = projectRoot();
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string };
  const memKiB = Number(procField('/proc/meminfo', /MemTotal:\s+(\d+) kB/));
  return [
    `- versions: node ${process.version}; ${javaVersion()}; official broker and name server ${jarVersion('rocketmq-broker')} (Java load generator on client ${jarVersion('rocketmq-client')}); rocketmq-ts ${pkg.version ?? '?'}`,
    `- machine: ${procField('/proc/cpuinfo', /model name\s*:\s*(.+)/)}, ${cpus().length} cores, ${(memKiB / 1024 / 1024).toFixed(1)} GiB memory, Linux ${release()}`,
  ];
}

// ---------------------------------------------------------------------------------------------
// docs/benchmarks.md

const MARKER =
  '<!-- generated by `npm run bench:compare`: everything below this line is rewritten by each run; write notes above it -->';

const DEFAULT_HEAD = `# Benchmarks

Our broker next to the official Apache RocketMQ broker on the same machine, driven by the same load
from the official Java client and from \`rmq bench\` (issue 13). Only the ours/official ratios of one
run mean something; absolute rates depend on the machine and on what else runs on it.
`;

/** Rewrites the generated part of docs/benchmarks.md, keeping what stands above the marker. */
export function writeDoc(generated: string): string {
  const file = join(projectRoot(), 'docs', 'benchmarks.md');
  let head = DEFAULT_HEAD;
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    const at = text.indexOf(MARKER);
    head = at >= 0 ? text.slice(0, at) : `${text.trimEnd()}\n\n`;
  }
  if (!head.endsWith('\n\n')) head = `${head.trimEnd()}\n\n`;
  writeFileSync(file, `${head}${MARKER}\n\n${generated.trimEnd()}\n`);
  return file;
}
