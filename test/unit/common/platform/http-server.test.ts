/**
 * The route table of the shared HTTP server (the broker's /metrics and the dashboard use it), over
 * real TCP on 127.0.0.1: exact and prefix routes, removal, 404/405/500, and the busy-port error.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '../../../../src/common/logger.js';
import { HttpPortInUseError, HttpServer } from '../../../../src/common/platform/http-server.js';

const server = new HttpServer({
  what: 'a test server',
  portSetting: 'testPort',
  logger: createLogger('test', { level: 'silent' }),
});
let base = '';

before(async () => {
  const a = await server.listen(0);
  assert.equal(a.address, '127.0.0.1');
  base = `http://127.0.0.1:${a.port}`;
});

after(() => server.close());

async function get(
  path: string,
  method = 'GET',
): Promise<{ status: number; body: string; allow: string | null }> {
  const res = await fetch(base + path, { method });
  return { status: res.status, body: await res.text(), allow: res.headers.get('allow') };
}

function answer(text: string) {
  return (_req: unknown, res: import('node:http').ServerResponse, url: URL) => {
    res.end(`${text} ${url.pathname}${url.search}`);
  };
}

test('an exact path beats a prefix, the longest prefix wins, the query reaches the handler', async () => {
  server.route('GET', '/api/*', answer('api'));
  server.route('GET', '/api/topics/*', answer('topics'));
  server.route('GET', '/api/cluster', answer('cluster'));
  assert.equal((await get('/api/groups?x=1')).body, 'api /api/groups?x=1');
  assert.equal((await get('/api/topics/T1')).body, 'topics /api/topics/T1');
  assert.equal((await get('/api/topics')).body, 'topics /api/topics');
  assert.equal((await get('/api/cluster')).body, 'cluster /api/cluster');
  assert.equal((await get('/apix')).status, 404);
});

test('a method the path does not take is 405 with Allow; a removed route is gone', async () => {
  const remove = server.route('POST', '/things', answer('posted'));
  const wrong = await get('/things');
  assert.equal(wrong.status, 405);
  assert.equal(wrong.allow, 'POST');
  assert.equal((await get('/things', 'POST')).body, 'posted /things');
  remove();
  assert.equal((await get('/things', 'POST')).status, 404);
});

test('a handler that throws answers 500 without its message', async () => {
  server.route('GET', '/boom', () => {
    throw new Error('secret detail');
  });
  const res = await get('/boom');
  assert.equal(res.status, 500);
  assert.doesNotMatch(res.body, /secret/);
});

test('a busy port rejects with the port, the host and the setting named', async () => {
  const other = new HttpServer({ what: 'another test server', portSetting: 'otherPort' });
  const port = Number(new URL(base).port);
  await assert.rejects(other.listen(port), (error: unknown) => {
    assert.ok(error instanceof HttpPortInUseError);
    assert.equal(
      error.message,
      `otherPort ${port} on 127.0.0.1 is already in use (another test server); choose another port with otherPort`,
    );
    return true;
  });
  await other.close();
});

test('a route path must start with /', () => {
  assert.throws(() => server.route('GET', 'metrics', answer('x')), /starts with '\/'/);
});
