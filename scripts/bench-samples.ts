/** Messages shaped like a typical producer's, for the codec benchmark. */
import { MessageExt } from '../src/common/message/index.js';

export function sampleMessageExt(i: number): MessageExt {
  const ext = new MessageExt('TopicTest', Buffer.alloc(1024, 0x61), { tags: 'TagA', keys: `OrderID${i}` });
  ext.putProperty('UNIQ_KEY', `7F0000010A2C18B4AAC2336B6E8D${i.toString(16).padStart(4, '0').toUpperCase()}`);
  ext.queueId = i % 4;
  ext.queueOffset = BigInt(1000 + i);
  ext.commitLogOffset = BigInt(1_000_000 + i * 1300);
  ext.bornTimestamp = 1_700_000_000_000n + BigInt(i);
  ext.storeTimestamp = 1_700_000_000_005n + BigInt(i);
  ext.bornHost = { address: '10.0.0.5', port: 53211 };
  ext.storeHost = { address: '10.0.0.1', port: 10911 };
  return ext;
}
