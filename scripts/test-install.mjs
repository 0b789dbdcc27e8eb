#!/usr/bin/env node
// The three ways a user installs rocketmq-ts, each from a clean temp directory outside the
// repository (`npm run test:install`; .ci/run runs it): from a git URL (npm clones, installs the dev
// dependencies and runs `prepare`, which builds), from a tarball `npm pack` made of an unbuilt clone
// (`prepack` builds), and from the path of a built clone. In each app the four entry points import,
// and in the tarball's app `npx rmq start` prints its banner and stops on SIGINT. Last, an install
// without a build: `rmq` and an import of an entry point say in one line how to build it. It tests the repository's HEAD commit
// (what a user would clone), so commit first. It takes minutes: npm builds the package twice.
//
//   node scripts/test-install.mjs [--keep]   (--keep leaves the temp directory for a look)

import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = mkdtempSync(join(tmpdir(), 'rmq-install-'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// The npm cache holds every dependency after the project's own install: no registry round trip.
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
const ENTRY_POINTS = ['rocketmq-ts', 'rocketmq-ts/client', 'rocketmq-ts/admin', 'rocketmq-ts/server'];
const failures = [];

function sh(cmd, args, cwd) {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function newApp(name) {
  const dir = join(tmp, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, version: '1.0.0', type: 'module' })}\n`);
  return dir;
}

async function step(name, fn) {
  const t0 = performance.now();
  try {
    await fn();
    console.log(`ok   ${name} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (err) {
    failures.push(name);
    const detail = err?.stderr ? `${err.message}\n${err.stderr}` : String(err?.stack ?? err);
    console.log(`FAIL ${name}: ${detail}`);
  }
}

function assertEntryPoints(app) {
  const script = `for (const e of ${JSON.stringify(ENTRY_POINTS)}) { const m = await import(e); if (Object.keys(m).length === 0) throw new Error(e + ': no exports'); }
const { createProducer } = await import('rocketmq-ts/client');
if (typeof createProducer !== 'function') throw new Error('createProducer missing');`;
  sh(process.execPath, ['--input-type=module', '-e', script], app);
}

/** A free port whose port - 2 is free too (the broker's VIP channel). */
async function freeBrokerPort() {
  for (;;) {
    const port = await new Promise((ok, fail) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = s.address();
        s.close(() => ok(p));
      });
      s.on('error', fail);
    });
    if (port < 1026) continue;
    const vipFree = await new Promise((ok) => {
      const s = createServer().listen(port - 2, '127.0.0.1', () => s.close(() => ok(true)));
      s.on('error', () => ok(false));
    });
    if (vipFree) return port;
  }
}

/** Whether `port` on 127.0.0.1 can be bound (no one listens there). */
function portFree(port) {
  return new Promise((ok) => {
    const s = createServer().listen(port, '127.0.0.1', () => s.close(() => ok(true)));
    s.on('error', () => ok(false));
  });
}

/**
 * Runs `npx rmq start` on free ports, waits for its banner, then sends SIGINT to its process group
 * as a terminal's Ctrl-C does (npx itself dies of it; rmq shuts down) and waits for the ports to
 * close.
 */
async function assertRmqStarts(app) {
  const namesrvPort = await freeBrokerPort();
  const brokerPort = await freeBrokerPort();
  const args = [
    'rmq',
    'start',
    `--namesrv-port=${namesrvPort}`,
    `--broker-port=${brokerPort}`,
    '--dashboard-port=-1',
    `--data-dir=${join(app, 'data')}`,
  ];
  const child = spawn('npx', ['--no-install', ...args], {
    cwd: app,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const signalGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  let out = '';
  let interrupted = false;
  const collect = (d) => {
    out += d;
    if (
      !interrupted &&
      out.includes(`name server  127.0.0.1:${namesrvPort}`) &&
      out.includes('Ctrl-C stops both')
    ) {
      interrupted = true;
      signalGroup('SIGINT');
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const deadline = Date.now() + 60_000;
  const hung = setTimeout(() => signalGroup('SIGKILL'), 60_000);
  await new Promise((ok) => child.on('exit', ok));
  clearTimeout(hung);
  while (!(await portFree(namesrvPort)) || !(await portFree(brokerPort))) {
    if (Date.now() > deadline) {
      signalGroup('SIGKILL');
      throw new Error(`rmq start still listens 60 s on:\n${out}`);
    }
    await new Promise((ok) => setTimeout(ok, 200));
  }
  if (!interrupted) throw new Error(`rmq start ended without its banner:\n${out}`);
}

const head = sh('git', ['rev-parse', 'HEAD'], repo).trim();
if (sh('git', ['status', '--porcelain', '--untracked-files=no'], repo).trim() !== '') {
  console.log(`note: the work tree has uncommitted changes; this tests HEAD ${head.slice(0, 10)}`);
}

try {
  await step('npm install git+file://<repo>#<HEAD> builds on install (prepare)', () => {
    const app = newApp('git-app');
    sh(npm, ['install', ...NPM_FLAGS, `git+${pathToFileURL(repo).href}#${head}`], app);
    const pkg = join(app, 'node_modules', 'rocketmq-ts');
    for (const f of ['build/src/index.js', 'build/bundle/cli/main.js', 'LICENSE']) {
      if (!existsSync(join(pkg, f))) throw new Error(`the installed package has no ${f}`);
    }
    if (existsSync(join(pkg, 'build', 'test'))) throw new Error('the installed package holds build/test');
    assertEntryPoints(app);
  });

  const clone = join(tmp, 'clone');
  let tarball;
  await step('npm pack of an unbuilt clone packs a built package (prepack)', () => {
    sh('git', ['clone', '--quiet', '--no-checkout', repo, clone], tmp);
    sh('git', ['checkout', '--quiet', head], clone);
    // --ignore-scripts: no `prepare`, so the clone stays unbuilt until `npm pack`.
    sh(npm, ['ci', ...NPM_FLAGS, '--ignore-scripts'], clone);
    if (existsSync(join(clone, 'build'))) throw new Error('npm ci --ignore-scripts built the clone');
    const name = sh(npm, ['pack', '--loglevel=error', '--pack-destination', tmp], clone)
      .trim()
      .split('\n')
      .pop();
    tarball = join(tmp, name);
    const listing = sh('tar', ['-tzf', tarball], tmp);
    for (const f of [
      'package/build/src/index.js',
      'package/build/src/client/index.d.ts',
      'package/LICENSE',
    ]) {
      if (!listing.includes(f)) throw new Error(`the tarball has no ${f}`);
    }
  });

  await step('npm install <tarball>: entry points import and `npx rmq start` runs', async () => {
    if (tarball === undefined) throw new Error('no tarball (the pack step failed)');
    const app = newApp('tarball-app');
    sh(npm, ['install', ...NPM_FLAGS, tarball], app);
    assertEntryPoints(app);
    await assertRmqStarts(app);
  });

  await step('npm install <path of a built clone>', () => {
    const app = newApp('path-app');
    sh(npm, ['install', ...NPM_FLAGS, clone], app);
    assertEntryPoints(app);
  });

  await step('an install without a build: rmq and an import say in one line how to build it', () => {
    const pkg = join(tmp, 'unbuilt', 'node_modules', 'rocketmq-ts');
    mkdirSync(pkg, { recursive: true });
    for (const f of readdirSync(clone)) {
      if (!['build', 'node_modules', '.git'].includes(f))
        cpSync(join(clone, f), join(pkg, f), { recursive: true });
    }
    let stderr = '';
    let status = 0;
    try {
      sh(process.execPath, [join(pkg, 'bin', 'rmq.js'), 'start'], tmp);
    } catch (err) {
      stderr = err.stderr;
      status = err.status;
    }
    if (status !== 1) throw new Error(`rmq exited with ${status}, not 1`);
    const lines = stderr.trim().split('\n');
    if (lines.length !== 1 || !lines[0].includes('npm run build')) {
      throw new Error(`expected one line naming npm run build, got:\n${stderr}`);
    }
    try {
      sh(
        process.execPath,
        ['--input-type=module', '-e', "await import('rocketmq-ts/client')"],
        join(tmp, 'unbuilt'),
      );
      throw new Error('rocketmq-ts/client imported without a build');
    } catch (err) {
      const out = String(err.stderr ?? '').trim();
      if (err.status !== 1 || out.split('\n').length !== 1 || !out.includes('npm run build')) {
        throw new Error(
          `import without a build: expected one line naming npm run build, got:\n${out || err}`,
        );
      }
    }
  });
} finally {
  if (process.argv.includes('--keep')) console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.log(`${failures.length} failed`);
  process.exit(1);
}
