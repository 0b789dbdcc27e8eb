/**
 * Docs as tests: every TypeScript and JavaScript block of README.md and docs/*.md type-checks under
 * `strict`, importing `rocketmq-ts` as a user does (the package's own `exports`, resolved to the
 * build), and each block marked `<!-- runnable -->` runs against startEmbedded and exits 0 by itself.
 * How blocks are found and marked: test/helpers/doc-snippets.ts.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createProducer } from '../../../src/client/producer/producer.js';
import { createLogger } from '../../../src/common/logger.js';
import { type Embedded, startEmbedded } from '../../../src/embedded/embedded.js';
import { type DocSnippet, docFiles, extractSnippets } from '../../helpers/doc-snippets.js';
import { repoRoot } from '../../helpers/import-probe.js';
import { runScript } from '../../helpers/run-script.js';

const RUN_DEADLINE_MS = 60_000;
/** The name server address the docs show; a runnable block gets the embedded one instead. */
const DOCS_NAMESRV = '127.0.0.1:9876';

const snippets: DocSnippet[] = docFiles(repoRoot).flatMap((f) => extractSnippets(repoRoot, f));
const fileOf = (s: DocSnippet): string => `${s.name}${s.javascript ? '.mjs' : '.ts'}`;
const outputOf = (s: DocSnippet): string => `${s.name}${s.javascript ? '.mjs' : '.js'}`;

describe('docs snippets', () => {
  // Inside the repository, so `import 'rocketmq-ts'` resolves through package.json's exports as a
  // dependency's would, and node_modules (prom-client, @types/node) is the repository's.
  let dir: string;

  before(() => {
    mkdirSync(join(repoRoot, 'build'), { recursive: true });
    dir = mkdtempSync(join(repoRoot, 'build', 'doc-snippets-'));
    for (const s of snippets) writeFileSync(join(dir, fileOf(s)), `${s.code}\nexport {};\n`);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2022'],
          types: ['node'],
          skipLibCheck: true,
          allowJs: true,
          checkJs: true,
          rootDir: '.',
          outDir: 'out',
        },
        include: ['*.ts', '*.mjs'],
      }),
    );
  });

  after(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  test('the docs have blocks, some of them runnable', () => {
    assert.ok(snippets.length >= 15, `found ${snippets.length} blocks`);
    assert.ok(snippets.filter((s) => s.runnable).length >= 5, 'too few runnable blocks');
  });

  test('every block type-checks under strict', async () => {
    const tsc = createRequire(join(repoRoot, 'package.json')).resolve('typescript/bin/tsc');
    const result = await promisify(execFile)(process.execPath, [tsc, '-p', dir], { cwd: dir }).then(
      () => '',
      (err: { stdout?: string }) => err.stdout ?? String(err),
    );
    // tsc names the temp file: say which doc and line it came from.
    const report = snippets.reduce(
      (text, s) => text.replaceAll(fileOf(s), `${fileOf(s)} (${s.where})`),
      result,
    );
    assert.equal(report, '', `tsc found errors in the docs' blocks:\n${report}`);
  });

  describe('runnable blocks exit by themselves', () => {
    let mq: Embedded;
    before(async () => {
      mq = await startEmbedded({ logger: createLogger('doc-snippets', { level: 'error' }) });
      // The docs' topic exists before any block runs, as it would on a broker in use.
      const producer = createProducer({ namesrvAddr: mq.namesrvAddr, producerGroup: 'doc_snippets_pg' });
      await producer.start();
      await producer.send({ topic: 'Orders', body: 'order 1', tags: 'Created', keys: 'order-1' });
      await producer.shutdown();
    });
    after(async () => {
      await mq?.close();
    });

    for (const s of snippets.filter((x) => x.runnable)) {
      test(s.where, async () => {
        const file = join(dir, 'out', outputOf(s));
        const code = readFileSync(file, 'utf8');
        writeFileSync(file, code.replaceAll(DOCS_NAMESRV, mq.namesrvAddr));
        const r = await runScript(file, dir, mq.namesrvAddr, RUN_DEADLINE_MS);
        assert.equal(r.code, 0, `${s.where} exited with ${r.code}:\n${r.output}`);
      });
    }
  });
});
