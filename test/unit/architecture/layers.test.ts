/**
 * Reads every import under src/ and fails on a forbidden edge between layers, on an impure import in
 * the pure layers, or on an import cycle. Runs on the TypeScript sources, not the build output.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The repository root: the nearest directory above this (compiled) file that holds package.json. */
function findRepoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'src'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('repository root not found');
    dir = parent;
  }
  return dir;
}

const repoRoot = findRepoRoot();
const srcRoot = join(repoRoot, 'src');

/** Which layers each layer may import. A layer is the first path segment under src/ (two for remoting). */
const ALLOWED: Record<string, readonly string[]> = {
  common: ['common'],
  // What touches the host (files, network interfaces), for every server and client layer.
  'common/platform': ['common/platform', 'common'],
  'remoting/protocol': ['remoting/protocol', 'common'],
  'remoting/transport': ['remoting/transport', 'remoting/protocol', 'common'],
  filter: ['filter', 'common'],
  store: ['store', 'common/platform', 'common'],
  namesrv: ['namesrv', 'remoting/transport', 'remoting/protocol', 'common/platform', 'common'],
  broker: [
    'broker',
    'store',
    'filter',
    'remoting/transport',
    'remoting/protocol',
    'common/platform',
    'common',
  ],
  client: ['client', 'filter', 'remoting/transport', 'remoting/protocol', 'common/platform', 'common'],
  admin: [
    'admin',
    'client',
    'filter',
    'remoting/transport',
    'remoting/protocol',
    'common/platform',
    'common',
  ],
  embedded: [
    'embedded',
    'broker',
    'namesrv',
    'store',
    'filter',
    'remoting/transport',
    'remoting/protocol',
    'common/platform',
    'common',
  ],
  cli: [
    'cli',
    'embedded',
    'admin',
    'client',
    'broker',
    'namesrv',
    'store',
    'filter',
    'remoting/transport',
    'remoting/protocol',
    'common/platform',
    'common',
  ],
  // The package's entry points (index.ts has everything, server.ts the broker and name server).
  '.': [
    '.',
    'embedded',
    'admin',
    'client',
    'broker',
    'namesrv',
    'store',
    'filter',
    'remoting/transport',
    'remoting/protocol',
    'common/platform',
    'common',
    'cli',
  ],
};

/** Pure layers hold codecs and models only: no sockets, files, processes, timers or host lookups. */
const PURE = new Set(['common', 'remoting/protocol']);
const IMPURE_MODULES = new Set([
  'net',
  'tls',
  'dgram',
  'dns',
  'http',
  'https',
  'http2',
  'fs',
  'fs/promises',
  'child_process',
  'cluster',
  'os',
  'timers',
  'timers/promises',
  'worker_threads',
  'readline',
  'process',
]);
/** Files in pure layers allowed one impure edge, each with its reason. */
const PURE_EXCEPTIONS = new Set<string>([]);

function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listSources(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

function layerOf(file: string): string {
  const parts = relative(srcRoot, file).split(/[\\/]/);
  if (parts.length === 1) return '.';
  if (parts[0] === 'remoting') return `remoting/${parts.length > 2 ? parts[1] : 'protocol'}`;
  if (parts[0] === 'common' && parts[1] === 'platform' && parts.length > 2) return 'common/platform';
  return parts[0] ?? '.';
}

const IMPORT_RE =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const specs: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec !== undefined) specs.push(spec);
  }
  return specs;
}

function resolveLocal(from: string, spec: string): string {
  return resolve(dirname(from), spec).replace(/\.js$/, '.ts');
}

test('every import respects the layer rules and the pure layers stay pure', () => {
  const files = listSources(srcRoot);
  assert.ok(files.length > 0, 'no sources found under src/');
  const problems: string[] = [];
  for (const file of files) {
    const layer = layerOf(file);
    const allowed = ALLOWED[layer];
    const rel = relative(repoRoot, file);
    if (allowed === undefined) {
      problems.push(`${rel}: unknown layer ${layer}`);
      continue;
    }
    for (const spec of importsOf(file)) {
      if (spec.startsWith('.')) {
        const target = layerOf(resolveLocal(file, spec));
        if (!allowed.includes(target)) problems.push(`${rel}: ${layer} must not import ${target} (${spec})`);
      } else if (PURE.has(layer) && !PURE_EXCEPTIONS.has(rel)) {
        const builtin = spec.replace(/^node:/, '');
        if (IMPURE_MODULES.has(builtin)) problems.push(`${rel}: pure layer ${layer} imports ${spec}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('there is no import cycle between source files', () => {
  const files = listSources(srcRoot);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    graph.set(
      file,
      importsOf(file)
        .filter((s) => s.startsWith('.'))
        .map((s) => resolveLocal(file, s)),
    );
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles: string[] = [];
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'visiting');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      const s = state.get(next);
      if (s === 'visiting') {
        const cycle = stack.slice(stack.indexOf(next)).concat(next);
        cycles.push(cycle.map((f) => relative(srcRoot, f)).join(' -> '));
      } else if (s === undefined && graph.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  assert.deepEqual(cycles, []);
});

test('the layer checker itself catches a forbidden edge', () => {
  assert.equal(layerOf(join(srcRoot, 'store', 'x.ts')), 'store');
  assert.equal(layerOf(join(srcRoot, 'remoting', 'transport', 'x.ts')), 'remoting/transport');
  assert.equal(ALLOWED.store?.includes('broker'), false);
  assert.equal(layerOf(join(srcRoot, 'common', 'platform', 'x.ts')), 'common/platform');
  assert.equal(ALLOWED.common?.includes('common/platform'), false);
  assert.equal(ALLOWED.common?.includes('remoting/protocol'), false);
  assert.equal(ALLOWED.namesrv?.includes('store'), false);
  assert.equal(ALLOWED.client?.includes('store'), false);
  assert.equal(ALLOWED.client?.includes('broker'), false);
  assert.deepEqual(importsOf(join(srcRoot, 'remoting', 'protocol', 'frame.ts')).sort(), [
    '../../common/errors.js',
    './command.js',
    './header-limits.js',
    './json-header.js',
    './rocketmq-header.js',
  ]);
});
