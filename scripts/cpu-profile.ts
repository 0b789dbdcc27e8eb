/**
 * CPU profiles for the benchmarks: V8's sampling profiler on this process (through node:inspector,
 * so a bench can profile only the phases it measures) and a summary of any `.cpuprofile` file, ours or
 * one written by `node --cpu-prof`, as the functions with the most self time.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The parts of V8's Profiler.Profile a summary reads. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }[];
  samples?: number[];
  timeDeltas?: number[];
  startTime: number;
  endTime: number;
}

/** Profiles this process from start() to stop(); one profile at a time. */
export class InProcessProfiler {
  private readonly session = new Session();
  private connected = false;

  async start(samplingIntervalUs = 500): Promise<void> {
    if (!this.connected) {
      this.session.connect();
      this.connected = true;
      await this.session.post('Profiler.enable');
    }
    await this.session.post('Profiler.setSamplingInterval', { interval: samplingIntervalUs });
    await this.session.post('Profiler.start');
  }

  /** Stops and writes the profile to `file` (open it in Chrome DevTools or any .cpuprofile viewer). */
  async stop(file: string): Promise<CpuProfile> {
    const { profile } = await this.session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    return profile as CpuProfile;
  }

  close(): void {
    if (this.connected) this.session.disconnect();
    this.connected = false;
  }
}

const ROOT_URL = new URL('../..', import.meta.url).href;

function where(url: string, line: number): string {
  if (url === '') return '';
  let path = url;
  if (url.startsWith('file://')) {
    const full = fileURLToPath(url);
    path = url.startsWith(ROOT_URL) ? relative(fileURLToPath(ROOT_URL), full) : full;
  }
  return `${path}:${line + 1}`;
}

/**
 * The `top` functions by self time (samples whose top frame they are), as lines "ms  %  name  file:line";
 * V8's pseudo-frames ((garbage collector), (program), (idle)) included, since they are time too.
 */
export function summarizeProfile(profile: CpuProfile, top = 15): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let total = 0;
  // timeDeltas[i] is the gap before sample i; the time up to the next sample belongs to sample i.
  for (let i = 0; i < samples.length; i++) {
    const node = byId.get(samples[i] ?? -1);
    const us = deltas[i + 1] ?? 0;
    if (node === undefined || us <= 0) continue;
    const f = node.callFrame;
    const key = `${f.functionName === '' ? '(anonymous)' : f.functionName}\t${where(f.url, f.lineNumber)}`;
    selfUs.set(key, (selfUs.get(key) ?? 0) + us);
    total += us;
  }
  const rows = [...selfUs.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  const busy = total - (selfUs.get('(idle)\t') ?? 0);
  return [
    `${(total / 1000).toFixed(0)} ms sampled, ${(busy / 1000).toFixed(0)} ms not idle (${((100 * busy) / Math.max(1, total)).toFixed(0)} %); self time:`,
    ...rows.map(([key, us]) => {
      const [name, at] = key.split('\t');
      return `${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / Math.max(1, total)).toFixed(1).padStart(5)} %  ${name}${at === '' ? '' : `  ${at}`}`;
    }),
  ];
}
