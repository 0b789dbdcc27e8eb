/**
 * Codec rates on one core: SEND_MESSAGE_V2 frame (1 KiB body) encode+decode through the splitter, in
 * both header serializations, and decoding a 32-message pull response body. Prints figures; it is not
 * a test. `npm run bench:codec [-- --seconds N]`
 */
import { decodeMessages, encodeMessage } from '../src/common/message/index.js';
import { type RemotingCommand, SerializeType } from '../src/remoting/protocol/command.js';
import { decodeFrame, encodeFrameHead } from '../src/remoting/protocol/frame.js';
import { FrameSplitter } from '../src/remoting/protocol/frame-splitter.js';
import { decodeHeader } from '../src/remoting/protocol/header-schema.js';
import { SendMessageRequestHeaderV2 } from '../src/remoting/protocol/headers/index.js';
import { sampleMessageExt } from './bench-samples.js';

const secondsArg = process.argv.indexOf('--seconds');
const SECONDS = secondsArg >= 0 ? Number(process.argv[secondsArg + 1]) : 2;

function run(name: string, bytesPerOp: number, op: () => void): void {
  for (let i = 0; i < 2000; i++) op(); // warm-up so the JIT has compiled the path
  let ops = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  while (performance.now() < deadline) {
    for (let i = 0; i < 256; i++) op();
    ops += 256;
  }
  const secs = (performance.now() - started) / 1000;
  const rate = ops / secs;
  console.log(
    `${name.padEnd(56)} ${Math.round(rate).toLocaleString('en-US').padStart(12)} ops/s ${((rate * bytesPerOp) / 1e6).toFixed(1).padStart(9)} MB/s`,
  );
}

const body = Buffer.alloc(1024, 0x61);
for (const serializeType of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
  const send: RemotingCommand = {
    code: 310,
    language: 'JAVA',
    version: 409,
    opaque: 1,
    flag: 0,
    serializeType,
    body,
    extFields: {
      a: 'please_rename_unique_group_name',
      b: 'TopicTest',
      c: 'TBW102',
      d: '4',
      e: '3',
      f: '0',
      g: '1700000000000',
      h: '0',
      i: 'KEYS\u0001OrderID188\u0002UNIQ_KEY\u00017F0000010A2C18B4AAC2336B6E8D0000\u0002WAIT\u0001true\u0002TAGS\u0001TagA',
      j: '0',
      k: 'false',
      m: 'false',
      n: 'broker-a',
    },
  };
  const name = serializeType === SerializeType.JSON ? 'JSON' : 'ROCKETMQ';
  const frameSize = encodeFrameHead(send).length + body.length;
  const splitter = new FrameSplitter();
  run(`SEND_MESSAGE_V2 1 KiB encode+split+decode (${name})`, frameSize, () => {
    send.opaque = (send.opaque + 1) | 0;
    const head = encodeFrameHead(send);
    // The splitter sees head and body as two chunks, as a socket may deliver them.
    splitter.push(head, () => undefined);
    splitter.push(body, (payload) => {
      const cmd = decodeFrame(payload);
      decodeHeader(SendMessageRequestHeaderV2, cmd.extFields);
    });
  });
  run(`  encode only (${name})`, frameSize, () => {
    send.opaque = (send.opaque + 1) | 0;
    encodeFrameHead(send);
  });
  // 64 frames in one chunk, as a pipelining producer's bytes arrive: views, no copies.
  const batch = Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([encodeFrameHead(send), body])));
  let frames = 0;
  const started = performance.now();
  while (performance.now() - started < SECONDS * 1000) {
    splitter.push(batch, (payload) => {
      const cmd = decodeFrame(payload);
      decodeHeader(SendMessageRequestHeaderV2, cmd.extFields);
      frames++;
    });
  }
  const rate = frames / ((performance.now() - started) / 1000);
  console.log(
    `${`  split+decode only, 64 frames per chunk (${name})`.padEnd(56)} ${Math.round(rate).toLocaleString('en-US').padStart(12)} ops/s ${((rate * frameSize) / 1e6).toFixed(1).padStart(9)} MB/s`,
  );
  console.log(`  (frame size ${frameSize} bytes)`);
}

const messages = Array.from({ length: 32 }, (_, i) => encodeMessage(sampleMessageExt(i)));
const pullBody = Buffer.concat(messages);
run('pull response body: decode 32 messages', pullBody.length, () => {
  const decoded = decodeMessages(pullBody);
  if (decoded.length !== 32) throw new Error('decode lost messages');
});
console.log(`  (pull body ${pullBody.length} bytes)`);
