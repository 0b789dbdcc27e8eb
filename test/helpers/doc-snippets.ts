/**
 * The TypeScript and JavaScript blocks of README.md and docs/*.md, for the docs-as-tests suite.
 * A block is a fence whose language is js, javascript, mjs, ts or typescript. An HTML comment on the
 * last non-blank line before the fence marks it:
 *   <!-- runnable -->     the test runs it against startEmbedded (its 127.0.0.1:9876 replaced by the
 *                         embedded name server), and it must exit by itself with code 0
 *   <!-- javascript -->   checked as a JavaScript module (checkJs) instead of TypeScript, for code
 *                         that lives in a .mjs file of its own (a broker's named-filter module)
 * Words combine: `<!-- runnable javascript -->`. Every other block is type-checked under strict.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DocSnippet {
  /** `docs/producer.md:151` (the line of the opening fence). */
  readonly where: string;
  /** A file name for it: `docs-producer.md-L151`. */
  readonly name: string;
  readonly code: string;
  readonly runnable: boolean;
  readonly javascript: boolean;
}

const FENCE = /^```(\w*)\s*$/;
const LANGUAGES = new Set(['js', 'javascript', 'mjs', 'ts', 'typescript']);
const MARKER = /^<!--\s*(.*?)\s*-->$/;

/** The markdown files whose blocks are tests: README.md and docs/*.md, repository-relative. */
export function docFiles(repoRoot: string): string[] {
  const docs = readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

export function extractSnippets(repoRoot: string, file: string): DocSnippet[] {
  const lines = readFileSync(join(repoRoot, file), 'utf8').split('\n');
  const out: DocSnippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (open === null) continue;
    let end = i + 1;
    while (end < lines.length && !(lines[end] ?? '').startsWith('```')) end++;
    if (LANGUAGES.has(open[1] ?? '')) {
      let before = i - 1;
      while (before >= 0 && (lines[before] ?? '').trim() === '') before--;
      const words = MARKER.exec((lines[before] ?? '').trim())?.[1]?.split(/\s+/) ?? [];
      out.push({
        where: `${file}:${i + 1}`,
        name: `${file.replace(/\//g, '-')}-L${i + 1}`,
        code: lines.slice(i + 1, end).join('\n'),
        runnable: words.includes('runnable'),
        javascript: words.includes('javascript'),
      });
    }
    i = end;
  }
  return out;
}
