/**
 * LocalFileOffsetStore on real files in a temp directory: upstream's path and pretty JSON, persistAll
 * of held queues over what the file holds, READ_FROM_STORE reading the file, the `.bak` fallback
 * when the file is missing, empty or corrupt, a typed error naming the file when neither can be
 * read, and a file written by the official Java client loaded as is.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  defaultLocalOffsetStoreDir,
  LocalFileOffsetStore,
  LocalOffsetFileError,
  localOffsetStorePath,
} from '../../../../src/client/consumer/offset/local-file-offset-store.js';
import { ReadOffsetType } from '../../../../src/client/consumer/offset/offset-store.js';
import { createLogger, type LogRecord } from '../../../../src/common/logger.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';
import {
  decodeOffsetSerializeWrapper,
  encodeOffsetSerializeWrapper,
} from '../../../../src/common/protocol/offset-serialize-wrapper.js';
import { goldenFile } from '../../../golden-fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'rmq-local-offsets-'));
after(() => rmSync(root, { recursive: true, force: true }));

let seq = 0;

interface Fixture {
  store: LocalFileOffsetStore;
  records: LogRecord[];
  /** Another store on the same file (a restarted consumer). */
  reopen(): LocalFileOffsetStore;
}

function fixture(): Fixture {
  seq += 1;
  const dir = join(root, `d${seq}`);
  const clientId = '127.0.0.1@broadcast';
  const records: LogRecord[] = [];
  const logger = createLogger('test', { level: 'debug', sink: (r) => records.push(r) });
  const make = () =>
    new LocalFileOffsetStore({ clientId, groupName: 'cg-bcast', logger, localOffsetStoreDir: dir });
  return { store: make(), records, reopen: make };
}

const q0 = new MessageQueue('TopicA', 'broker-a', 0);
const q1 = new MessageQueue('TopicA', 'broker-a', 1);
const q2 = new MessageQueue('TopicA', 'broker-b', 0);

function fileTable(path: string): string[] {
  return decodeOffsetSerializeWrapper(readFileSync(path))
    .map(([mq, o]) => `${mq.brokerName}/${mq.queueId}=${o}`)
    .sort();
}

function errorsNaming(records: LogRecord[], file: string): LogRecord[] {
  return records.filter((r) => r.level === 'error' && r.fields.file === file);
}

describe('LocalFileOffsetStore', () => {
  test("upstream's path: <dir>/<clientId>/<group>/offsets.json, dir ~/.rocketmq_offsets by default", () => {
    assert.equal(defaultLocalOffsetStoreDir(), join(homedir(), '.rocketmq_offsets'));
    assert.equal(
      localOffsetStorePath('/d', '10.0.0.1@1234', 'cg'),
      join('/d', '10.0.0.1@1234', 'cg', 'offsets.json'),
    );
    const store = new LocalFileOffsetStore({
      clientId: '10.0.0.1@1234',
      groupName: 'cg',
      logger: createLogger('t', { level: 'silent' }),
    });
    assert.equal(
      store.storePath,
      join(homedir(), '.rocketmq_offsets', '10.0.0.1@1234', 'cg', 'offsets.json'),
    );
  });

  test('persistAll writes the held queues in pretty upstream JSON; a new store loads them', async () => {
    const { store, reopen } = fixture();
    await store.load();
    assert.equal(existsSync(store.storePath), false, 'load of a missing file creates nothing');
    store.updateOffset(q0, 10n, false);
    store.updateOffset(q1, 9007199254740993n, false);
    store.updateOffset(q2, 30n, false);
    await store.persistAll([q0, q1]);
    const text = readFileSync(store.storePath, 'utf8');
    assert.equal(
      text,
      encodeOffsetSerializeWrapper(
        [
          [q0, 10n],
          [q1, 9007199254740993n],
        ],
        { pretty: true },
      ),
    );
    assert.ok(text.startsWith('{\n\t"offsetTable":{{\n\t\t\t"brokerName"'), 'pretty, tab-indented');
    assert.equal(store.readOffsetInMemory(q2), 30n, 'a queue not held stays in memory (upstream)');

    const again = reopen();
    assert.equal(again.readOffsetInMemory(q0), -1n);
    await again.load();
    assert.equal(again.readOffsetInMemory(q0), 10n);
    assert.equal(again.readOffsetInMemory(q1), 9007199254740993n);
    assert.equal(again.readOffsetInMemory(q2), -1n, 'never persisted');
  });

  test('persistAll keeps what the file holds for queues not held now, and overwrites held ones', async () => {
    const { store, reopen } = fixture();
    store.updateOffset(q0, 10n, false);
    store.updateOffset(q2, 30n, false);
    await store.persistAll(new Set([q0.key, q2.key]));
    const later = reopen();
    later.updateOffset(q0, 11n, false);
    later.updateOffset(q1, 21n, false);
    await later.persistAll([q0, q1]);
    assert.deepEqual(fileTable(store.storePath), ['broker-a/0=11', 'broker-a/1=21', 'broker-b/0=30']);
    // The previous file is the backup.
    assert.deepEqual(fileTable(`${store.storePath}.bak`), ['broker-a/0=10', 'broker-b/0=30']);
  });

  test('persist(mq) writes one queue over the file; a queue without an offset writes nothing', async () => {
    const { store } = fixture();
    await store.persist(q0);
    assert.equal(existsSync(store.storePath), false);
    store.updateOffset(q0, 5n, false);
    store.updateOffset(q1, 6n, false);
    await store.persist(q0);
    assert.deepEqual(fileTable(store.storePath), ['broker-a/0=5']);
    await store.persist(q1);
    assert.deepEqual(fileTable(store.storePath), ['broker-a/0=5', 'broker-a/1=6']);
  });

  test('READ_FROM_STORE reads the file, not memory, and keeps what it read in memory', async () => {
    const { store } = fixture();
    store.updateOffset(q0, 10n, false);
    await store.persistAll([q0]);
    store.updateOffset(q0, 15n, false);
    assert.equal(await store.readOffset(q0, ReadOffsetType.READ_FROM_STORE), 10n);
    assert.equal(store.readOffsetInMemory(q0), 10n);
    assert.equal(await store.readOffset(q1, ReadOffsetType.READ_FROM_STORE), -1n, 'not in the file');
    assert.equal(await store.readOffset(q1, ReadOffsetType.MEMORY_FIRST_THEN_STORE), -1n);
    store.removeOffset(q0);
    assert.equal(
      await store.readOffset(q0, ReadOffsetType.MEMORY_FIRST_THEN_STORE),
      10n,
      'memory empty: the file',
    );
  });

  test('many persists at once never interleave their writes: the file ends with every queue', async () => {
    const { store } = fixture();
    const queues = Array.from({ length: 20 }, (_, i) => new MessageQueue('TopicA', 'broker-a', i));
    for (const [i, q] of queues.entries()) store.updateOffset(q, BigInt(i), false);
    await Promise.all([...queues.map((q) => store.persist(q)), store.persistAll(queues.slice(0, 5))]);
    assert.equal(decodeOffsetSerializeWrapper(readFileSync(store.storePath)).length, 20);
    assert.equal(existsSync(`${store.storePath}.tmp`), false);
  });

  describe('a missing, empty or corrupt file falls back to offsets.json.bak', () => {
    const cases: Array<[string, (path: string) => void, boolean]> = [
      ['missing', (p) => rmSync(p), false],
      ['empty', (p) => writeFileSync(p, ''), false],
      ['corrupt', (p) => writeFileSync(p, '{"offsetTable":{{"brokerName":"broker-a","que'), true],
      ['not a wrapper', (p) => writeFileSync(p, '[1,2,3]'), true],
    ];
    for (const [what, damage, logged] of cases) {
      test(what, async () => {
        const { store, records, reopen } = fixture();
        store.updateOffset(q0, 10n, false);
        await store.persistAll([q0]);
        store.updateOffset(q0, 20n, false);
        await store.persistAll([q0]);
        // offsets.json holds 20, offsets.json.bak the 10 before it.
        damage(store.storePath);
        const again = reopen();
        await again.load();
        assert.equal(again.readOffsetInMemory(q0), 10n);
        assert.equal(await again.readOffset(q0, ReadOffsetType.READ_FROM_STORE), 10n);
        assert.equal(
          errorsNaming(records, store.storePath).length > 0,
          logged,
          'an error line names the file',
        );
      });
    }
  });

  test('file and backup both corrupt: load throws a typed error naming the backup; reads give -1', async () => {
    const { store, records } = fixture();
    mkdirSync(dirname(store.storePath), { recursive: true });
    writeFileSync(store.storePath, 'garbage');
    writeFileSync(`${store.storePath}.bak`, '{"offsetTable":');
    await assert.rejects(
      store.load(),
      (e: unknown) =>
        e instanceof LocalOffsetFileError &&
        e.file === `${store.storePath}.bak` &&
        e.message.includes(e.file),
    );
    assert.ok(errorsNaming(records, store.storePath).length > 0);
    assert.ok(errorsNaming(records, `${store.storePath}.bak`).length > 0);
    assert.equal(await store.readOffset(q0, ReadOffsetType.READ_FROM_STORE), -1n);
  });

  test('file and backup both corrupt: persistAll rewrites the file from memory', async () => {
    const { store, records, reopen } = fixture();
    mkdirSync(dirname(store.storePath), { recursive: true });
    writeFileSync(store.storePath, 'garbage');
    writeFileSync(`${store.storePath}.bak`, 'more garbage');
    store.updateOffset(q0, 42n, false);
    await store.persistAll([q0]);
    assert.deepEqual(fileTable(store.storePath), ['broker-a/0=42']);
    assert.ok(records.some((r) => r.level === 'error' && r.msg.includes('rewriting')));
    const again = reopen();
    await again.load();
    assert.equal(again.readOffsetInMemory(q0), 42n);
  });

  test('a file that cannot be written gives an error line naming it, never a rejection', async () => {
    const { store, records } = fixture();
    // A directory where the file's parent should be: the write fails.
    mkdirSync(dirname(dirname(store.storePath)), { recursive: true });
    writeFileSync(dirname(store.storePath), 'a file, not a directory');
    store.updateOffset(q0, 1n, false);
    await store.persistAll([q0]);
    await store.persist(q0);
    assert.equal(errorsNaming(records, store.storePath).filter((r) => r.msg.includes('failed')).length, 2);
  });

  test('loads the offsets.json the official Java client wrote (golden fixture), and writes it back the same', async () => {
    const { store, reopen } = fixture();
    const golden = goldenFile('bodies/offset-serialize-wrapper.pretty.json');
    mkdirSync(dirname(store.storePath), { recursive: true });
    writeFileSync(store.storePath, golden);
    await store.load();
    assert.equal(store.readOffsetInMemory(new MessageQueue('TopicTest', 'broker-a', 2)), 9007199254740993n);
    assert.equal(store.readOffsetInMemory(new MessageQueue('TopicOrder', 'broker-a', 3)), 3n);
    assert.equal(store.cloneOffsetTable(undefined).length, 5);
    // Persisting every queue unchanged gives Java's bytes back.
    await store.persistAll(store.cloneOffsetTable(undefined).map(([mq]) => mq));
    assert.equal(readFileSync(store.storePath, 'utf8'), golden.toString('utf8'));
    const compact = reopen();
    writeFileSync(store.storePath, goldenFile('bodies/offset-serialize-wrapper.json'));
    await compact.load();
    assert.equal(compact.readOffsetInMemory(new MessageQueue('TopicTest', 'broker-b', 0)), 57n);
  });

  test('updateConsumeOffsetToBroker does nothing (broadcasting offsets stay local)', async () => {
    const { store } = fixture();
    await store.updateConsumeOffsetToBroker(q0, 5n, false);
    assert.equal(existsSync(store.storePath), false);
    assert.equal(store.readOffsetInMemory(q0), -1n);
  });
});
