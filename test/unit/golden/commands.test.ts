/**
 * Every command fixture written by the official 4.9.8 RemotingCommand: decode it (whole, one byte at a
 * time, and back to back with the next fixture), compare with the values Java recorded, decode its
 * custom header with our schema, then re-encode and compare bytes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type RemotingCommand, SerializeType } from '../../../src/remoting/protocol/command.js';
import { decodeFrame, encodeFrame } from '../../../src/remoting/protocol/frame.js';
import { FrameSplitter } from '../../../src/remoting/protocol/frame-splitter.js';
import {
  type AnyHeaderSchema,
  decodeHeader,
  encodeHeader,
} from '../../../src/remoting/protocol/header-schema.js';
import { headerSchemas } from '../../../src/remoting/protocol/headers/index.js';
import { type GoldenCommand, goldenFile, goldenManifest } from '../../golden-fixtures.js';
import { chunkings } from '../../helpers/chunks.js';

const commands = goldenManifest().commands;

function splitAll(chunks: Buffer[]): RemotingCommand[] {
  const splitter = new FrameSplitter();
  const out: RemotingCommand[] = [];
  for (const chunk of chunks) splitter.push(chunk, (payload) => out.push(decodeFrame(payload)));
  assert.equal(splitter.buffered, 0);
  return out;
}

/** What Java recorded, as our decoder must produce it: nulls and (in ROCKETMQ) empty strings are absent. */
function expectedCommand(g: GoldenCommand): RemotingCommand {
  const cmd: RemotingCommand = {
    code: g.code,
    language: g.language,
    version: g.version,
    opaque: g.opaque,
    flag: g.flag,
    serializeType: g.serializeType === 'JSON' ? SerializeType.JSON : SerializeType.ROCKETMQ,
  };
  if (g.remark !== null && !(g.serializeType === 'ROCKETMQ' && g.remark === '')) cmd.remark = g.remark;
  if (g.extFields !== null) {
    const ext: Record<string, string> = {};
    for (const [k, v] of Object.entries(g.extFields)) {
      // Java's ROCKETMQ decoder turns a zero-length value into null; ours keeps it as ''.
      if (v === null && g.serializeType === 'ROCKETMQ') ext[k] = '';
      else if (v !== null) ext[k] = v;
    }
    if (g.serializeType === 'JSON' || Object.keys(ext).length > 0) cmd.extFields = ext;
  }
  if (g.bodyHex !== null && g.bodyHex.length > 0) cmd.body = Buffer.from(g.bodyHex, 'hex');
  return cmd;
}

function sameCommand(actual: RemotingCommand | undefined, expected: RemotingCommand): void {
  assert.ok(actual);
  const { extFields: a, ...restA } = actual;
  const { extFields: e, ...restE } = expected;
  assert.deepEqual(restA, restE);
  // extFields is a map: compare it as one, whatever the key order.
  assert.deepEqual(new Map(Object.entries(a ?? {})), new Map(Object.entries(e ?? {})));
}

describe('golden commands from the official RemotingCommand', () => {
  test('the fixtures cover every header schema we implement', () => {
    const covered = new Set(commands.map((c) => c.headerClass).filter((c) => c !== undefined));
    const missing = Object.keys(headerSchemas).filter((name) => !covered.has(name));
    assert.deepEqual(missing, []);
  });

  commands.forEach((g, index) => {
    const next = commands[(index + 1) % commands.length] as GoldenCommand;
    test(`${g.name} (${g.serializeType})`, () => {
      const bytes = goldenFile(g.file);
      const expected = expectedCommand(g);
      for (const { name, chunks } of chunkings(bytes)) {
        const [decoded] = splitAll(chunks);
        assert.doesNotThrow(() => sameCommand(decoded, expected), name);
      }
      const pair = splitAll([Buffer.concat([bytes, goldenFile(next.file)])]);
      assert.equal(pair.length, 2);
      sameCommand(pair[0], expected);
      sameCommand(pair[1], expectedCommand(next));

      const [decoded] = splitAll([bytes]);
      assert.ok(decoded);
      if (g.headerClass !== undefined && g.headerFields !== undefined) {
        const schema: AnyHeaderSchema | undefined = (headerSchemas as Record<string, AnyHeaderSchema>)[
          g.headerClass
        ];
        assert.ok(schema, `no schema for ${g.headerClass}`);
        const header = decodeHeader(schema, decoded.extFields);
        // Re-encoding the typed header gives back every header field Java put on the wire.
        const reencoded = encodeHeader(schema, header);
        for (const [field, spec] of Object.entries(g.headerFields)) {
          const wire = decoded.extFields?.[field];
          if (spec.value === null || wire === undefined) continue;
          assert.equal(reencoded[field], spec.value, `${g.headerClass}.${field}`);
        }
        // Netty's encoder writes FastCodesHeader fields first; the zero-copy pull path (encodeHeader) does not.
        if (schema.fastOrder !== undefined && g.sameBytesAsNettyEncoder !== false) {
          decoded.fastEncodedKeys = schema.fastOrder.map((f) => f.key);
        }
      }
      assert.equal(encodeFrame(decoded).toString('hex'), bytes.toString('hex'), 're-encoded bytes differ');
    });
  });
});
