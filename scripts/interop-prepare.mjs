#!/usr/bin/env node
// Builds interop/ (the Java helpers that drive the official Apache RocketMQ classes) and writes
//   interop/target/classes         compiled helpers
//   interop/target/classpath.txt   dependency jars, ':'-joined (start Java with -cp classes:<this>)
//   interop/target/java-opts.txt   JVM flags the official 4.9.x servers need on this JDK, one per line
//   interop/target/prepare-stamp.json  fingerprint used to skip the work when nothing changed
// then interop/client5/ (probes with the newest official 5.x client, a separate Maven module so the
// 4.9.8 and 5.x jars never share a classpath) the same way into interop/client5/target/{classes,
// classpath.txt,prepare-stamp.json}, and interop/server5/ (no sources: the newest official 5.x name
// server and broker jars) into interop/server5/target/{classpath.txt,prepare-stamp.json}.
// Maven runs in batch mode against a project-local repository (interop/.m2/repository, or
// $RMQ_MAVEN_REPO), so nothing lands in ~/.m2. Every step has a deadline and a clear error.
//
// Environment: RMQ_MAVEN_REPO (local repository path), RMQ_VERSION (overrides the pom's
// rocketmq.version with another 4.x release), RMQ5_VERSION (overrides rocketmq5.version of
// interop/client5 and interop/server5),
// RMQ_MAVEN_OFFLINE=1 (mvn -o), RMQ_PREPARE_TIMEOUT_MS (deadline of each Maven run, default 20
// minutes: the first run downloads about 60 MB, client5 about 40 MB more, server5 about 110 MB).

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const INTEROP_DIR = join(ROOT, 'interop');
export const TARGET_DIR = join(INTEROP_DIR, 'target');
export const CLASSES_DIR = join(TARGET_DIR, 'classes');
const JAVA_OPTS_FILE = join(TARGET_DIR, 'java-opts.txt');
export const CLIENT5_DIR = join(INTEROP_DIR, 'client5');
export const CLIENT5_TARGET_DIR = join(CLIENT5_DIR, 'target');
export const CLIENT5_CLASSES_DIR = join(CLIENT5_TARGET_DIR, 'classes');
export const SERVER5_DIR = join(INTEROP_DIR, 'server5');

/**
 * The Maven modules this script builds. Each has its own pom, sources, target dir, classpath file
 * and stamp; `versionEnv` names the environment variable passed as `-D<versionProperty>`;
 * `compiles` is false for a module that only resolves jars.
 */
const MODULES = [
  {
    name: 'interop',
    dir: INTEROP_DIR,
    versionEnv: 'RMQ_VERSION',
    versionProperty: 'rocketmq.version',
    javaOptsFile: JAVA_OPTS_FILE,
    compiles: true,
  },
  {
    name: 'interop/client5',
    dir: CLIENT5_DIR,
    versionEnv: 'RMQ5_VERSION',
    versionProperty: 'rocketmq5.version',
    javaOptsFile: undefined,
    compiles: true,
  },
  {
    name: 'interop/server5',
    dir: SERVER5_DIR,
    versionEnv: 'RMQ5_VERSION',
    versionProperty: 'rocketmq5.version',
    javaOptsFile: undefined,
    compiles: false,
  },
];

const moduleTarget = (m) => join(m.dir, 'target');
const moduleClasses = (m) => join(moduleTarget(m), 'classes');
const moduleClasspathFile = (m) => join(moduleTarget(m), 'classpath.txt');
const moduleStampFile = (m) => join(moduleTarget(m), 'prepare-stamp.json');

// The 4.9.x store unmaps files through DirectByteBuffer.cleaner() / jdk.internal.ref.Cleaner.clean()
// via reflection (store MappedFile.clean); on Java 9+ that needs these opens or it throws
// InaccessibleObjectException when a mapped file is destroyed (topic deletion, file expiry).
// sun.nio.ch lets Netty use its optimised selector instead of logging a reflective-access failure.
const JAVA9_PLUS_OPTS = [
  '--add-opens=java.base/java.nio=ALL-UNNAMED',
  '--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED',
  '--add-opens=java.base/sun.nio.ch=ALL-UNNAMED',
];

class PrepareError extends Error {
  constructor(message) {
    super(message);
    this.name = 'PrepareError';
  }
}

/** Runs a command with a deadline; kills its whole process group when the deadline passes. */
export function run(cmd, args, { cwd = ROOT, timeoutMs, env = process.env, what = cmd } = {}) {
  return new Promise((resolvePromise, reject) => {
    let child;
    try {
      child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      reject(new PrepareError(`${what}: cannot start ${cmd}: ${err.message}`));
      return;
    }
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(
        new PrepareError(
          `${what}: cannot run ${cmd} (${err.code ?? err.message}); is it installed and on PATH?`,
        ),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) {
        reject(new PrepareError(`${what}: timed out after ${timeoutMs} ms\n${tail(stdout + stderr)}`));
      } else {
        resolvePromise({ code, signal, stdout, stderr });
      }
    });
  });
}

function tail(text, lines = 40) {
  return text.split('\n').slice(-lines).join('\n');
}

export function listFiles(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out.sort();
}

export function mavenRepo() {
  return resolve(process.env.RMQ_MAVEN_REPO || join(INTEROP_DIR, '.m2', 'repository'));
}

function fingerprint(m, javaVersion) {
  const h = createHash('sha256');
  h.update(`java=${javaVersion}\nrepo=${mavenRepo()}\nversion=${process.env[m.versionEnv] ?? ''}\n`);
  for (const f of [join(m.dir, 'pom.xml'), ...listFiles(join(m.dir, 'src'))]) {
    h.update(`${relative(m.dir, f)}\n`);
    h.update(readFileSync(f));
  }
  return h.digest('hex');
}

async function javaVersion() {
  const r = await run('java', ['-version'], { timeoutMs: 30_000, what: 'java -version' });
  const text = r.stderr + r.stdout;
  const m = /version "([^"]+)"/.exec(text);
  if (r.code !== 0 || !m) {
    throw new PrepareError(`java -version failed (exit ${r.code}):\n${tail(text)}`);
  }
  const v = m[1];
  const major = v.startsWith('1.') ? Number(v.split('.')[1]) : Number.parseInt(v, 10);
  if (!(major >= 8)) throw new PrepareError(`unsupported Java version ${v}: need 8 or newer`);
  return { version: v, major };
}

function upToDate(m, fp) {
  const stampFile = moduleStampFile(m);
  if (!existsSync(stampFile) || !existsSync(moduleClasspathFile(m))) return false;
  if (m.javaOptsFile !== undefined && !existsSync(m.javaOptsFile)) return false;
  try {
    const stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
    if (stamp.fingerprint !== fp) return false;
  } catch {
    return false;
  }
  if (m.compiles && !existsSync(join(moduleClasses(m), 'org', 'rocketmqts', 'interop'))) return false;
  return readClasspath(m).every((jar) => existsSync(jar));
}

function readClasspath(m) {
  return readFileSync(moduleClasspathFile(m), 'utf8')
    .trim()
    .split(':')
    .filter((s) => s.length > 0);
}

/** Runs Maven for one module unless its stamp matches; returns true when it was up to date. */
async function buildModule(m, java, log) {
  const started = Date.now();
  const fp = fingerprint(m, java.version);
  if (upToDate(m, fp)) return true;
  const repo = mavenRepo();
  mkdirSync(repo, { recursive: true });
  const args = [
    '-B',
    '-q',
    `-Dmaven.repo.local=${repo}`,
    '-Dmdep.outputFile=target/classpath.txt',
    '-Dmdep.includeScope=runtime',
    ...(m.compiles ? ['compile'] : []),
    'dependency:build-classpath',
  ];
  const version = process.env[m.versionEnv];
  if (version) args.unshift(`-D${m.versionProperty}=${version}`);
  if (process.env.RMQ_MAVEN_OFFLINE === '1') args.unshift('-o');
  const timeoutMs = Number(process.env.RMQ_PREPARE_TIMEOUT_MS ?? 20 * 60_000);
  log(`interop-prepare: ${m.name}: mvn ${args.join(' ')} (deadline ${Math.round(timeoutMs / 1000)} s)`);
  const r = await run('mvn', args, { cwd: m.dir, timeoutMs, what: `mvn in ${m.name}` });
  if (r.code !== 0) {
    throw new PrepareError(`mvn failed in ${m.name} (exit ${r.code}):\n${tail(r.stdout + r.stderr)}`);
  }
  const cpFile = moduleClasspathFile(m);
  if (!existsSync(cpFile)) throw new PrepareError(`mvn did not write ${cpFile}`);
  const missing = readClasspath(m).filter((jar) => !existsSync(jar));
  if (missing.length > 0) {
    throw new PrepareError(`${m.name}: classpath lists missing jars: ${missing.join(', ')}`);
  }
  if (m.javaOptsFile !== undefined) {
    const opts = java.major >= 9 ? JAVA9_PLUS_OPTS : [];
    writeFileSync(m.javaOptsFile, opts.map((o) => `${o}\n`).join(''));
  }
  writeFileSync(
    moduleStampFile(m),
    `${JSON.stringify({ fingerprint: fp, java: java.version, builtAt: new Date().toISOString() }, null, 2)}\n`,
  );
  log(`interop-prepare: ${m.name}: built in ${Date.now() - started} ms`);
  return false;
}

/**
 * Makes sure interop/, interop/client5/ and interop/server5/ are built. Returns the pieces needed to
 * start Java: { classpath: string (interop classes + jars), javaOpts: string[], client5Classpath:
 * string (client5 classes + jars), skipped: boolean (all were up to date), ms: number }. The test
 * harness reads the 5.x modules' classpaths from their target dirs itself (moduleClasspath).
 */
export async function prepare({ log = (m) => process.stderr.write(`${m}\n`) } = {}) {
  const started = Date.now();
  const java = await javaVersion();
  const fresh = MODULES.map((m) => upToDate(m, fingerprint(m, java.version)));
  if (fresh.includes(false)) {
    const mvnCheck = await run('mvn', ['-v', '-B'], { timeoutMs: 60_000, what: 'mvn -v' });
    if (mvnCheck.code !== 0) {
      throw new PrepareError(
        `mvn -v failed (exit ${mvnCheck.code}):\n${tail(mvnCheck.stdout + mvnCheck.stderr)}`,
      );
    }
  }
  let skipped = true;
  for (const m of MODULES) {
    if (!(await buildModule(m, java, log))) skipped = false;
  }
  const [main, client5] = MODULES;
  return {
    classpath: [moduleClasses(main), ...readClasspath(main)].join(':'),
    javaOpts: readFileSync(JAVA_OPTS_FILE, 'utf8')
      .split('\n')
      .filter((s) => s.length > 0),
    client5Classpath: [moduleClasses(client5), ...readClasspath(client5)].join(':'),
    skipped,
    ms: Date.now() - started,
  };
}

const invokedDirectly =
  process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  prepare()
    .then((r) => {
      process.stderr.write(`interop-prepare: ${r.skipped ? 'up to date' : 'ready'} (${r.ms} ms)\n`);
    })
    .catch((err) => {
      process.stderr.write(`interop-prepare: ${err instanceof PrepareError ? err.message : err.stack}\n`);
      process.exit(1);
    });
}
