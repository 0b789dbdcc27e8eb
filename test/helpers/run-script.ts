/**
 * Runs a script as a user runs it (`node <file>`) with NAMESRV_ADDR set, and collects its output; a
 * script still running after the deadline is killed (its exit code is then null).
 */
import { spawn } from 'node:child_process';

export interface ScriptRun {
  readonly code: number | null;
  readonly output: string;
}

export function runScript(
  file: string,
  cwd: string,
  namesrvAddr: string,
  deadlineMs = 60_000,
): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], {
      cwd,
      env: { ...process.env, NAMESRV_ADDR: namesrvAddr, RMQ_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
