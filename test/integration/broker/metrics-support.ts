/**
 * Reading Prometheus' text format back in tests: GET a URL, parse every sample line into its name,
 * labels and value.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE_RE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL_RE = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescapeLabel(text: string): string {
  return text.replace(/\\(["\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : c));
}

/** Every sample of a text-format body; a line that is neither a comment nor a sample fails the test. */
export function parseMetrics(body: string): Sample[] {
  const out: Sample[] = [];
  for (const line of body.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE_RE.exec(line);
    assert.ok(m !== null, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL_RE)) labels[l[1] as string] = unescapeLabel(l[2] as string);
    const text = m[3] as string;
    out.push({ name: m[1] as string, labels, value: text === 'Nan' ? Number.NaN : Number(text) });
  }
  return out;
}

/** The value of the one sample of `name` whose labels include `labels`, or undefined. */
export function sampleValue(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  assert.ok(found.length <= 1, `${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

export function urlOf(address: AddressInfo | undefined, path: string): string {
  assert.ok(address !== undefined, 'the HTTP server is not listening');
  return `http://${address.address}:${address.port}${path}`;
}

export async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url);
  assert.equal(res.status, 200, `GET ${url}`);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parseMetrics(await res.text());
}
