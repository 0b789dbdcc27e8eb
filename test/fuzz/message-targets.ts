/** Fuzz targets for the stored/pulled message format and the batch format. */
import { RocketMQError } from '../../src/common/errors.js';
import { fuzzBatchDecode, fuzzMessageDecode } from '../../src/common/message/fuzz-targets.js';
import { encodeBatch, encodeMessage, Message, MessageExt } from '../../src/common/message/index.js';
import type { FuzzTarget } from './engine.js';

const isTyped = (err: unknown): boolean => err instanceof RocketMQError;

function sample(topic: string, body: string, v6: boolean): MessageExt {
  const ext = new MessageExt(topic, Buffer.from(body), { tags: 'TagA', keys: ['k1', 'k2'] });
  ext.putUserProperty('color', 'blue');
  ext.queueOffset = 42n;
  ext.commitLogOffset = 9_007_199_254_740_993n;
  ext.bornHost = v6 ? { address: '::1', port: 5000 } : { address: '10.0.0.5', port: 5000 };
  ext.storeHost = { address: '127.0.0.1', port: 10911 };
  if (v6) ext.sysFlag |= 0x10;
  return ext;
}

const records = [
  sample('TopicTest', 'hello', false),
  sample('T', '', true),
  sample('%RETRY%g', 'x'.repeat(40), false),
].map((m) => encodeMessage(m));

export const messageTarget: FuzzTarget = {
  name: 'stored message decoder',
  seeds: [...records, Buffer.concat(records)],
  run: (input) => fuzzMessageDecode(input),
  isExpected: isTyped,
};

export const batchTarget: FuzzTarget = {
  name: 'batch decoder',
  seeds: [
    encodeBatch([
      new Message('T', Buffer.from('a'), { tags: 'x' }),
      new Message('T', Buffer.from('bb'), { keys: 'k' }),
    ]),
    encodeBatch([new Message('T', Buffer.alloc(0))]),
  ],
  run: (input) => fuzzBatchDecode(input),
  isExpected: isTyped,
};

export const messageTargets: FuzzTarget[] = [messageTarget, batchTarget];
