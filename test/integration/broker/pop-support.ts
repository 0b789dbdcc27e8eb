/** A broker in process (no name server) and raw POP_MESSAGE / SEND_MESSAGE requests for the POP tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BrokerConfigOverrides,
  type BrokerController,
  createBroker,
} from '../../../src/broker/index.js';
import { createLogger } from '../../../src/common/logger.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { messageProperties2String } from '../../../src/common/message/properties.js';
import { decodeMessages } from '../../../src/common/message/stored-format.js';
import { buildExtraInfo, parseMsgOffsetInfo, parseStartOffsetInfo } from '../../../src/common/pop/index.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import {
  decodeHeader,
  encodeHeader,
  type HeaderInputOf,
  type HeaderOf,
} from '../../../src/remoting/protocol/header-schema.js';
import { SendMessageRequestHeader } from '../../../src/remoting/protocol/headers/index.js';
import {
  PopMessageRequestHeader,
  PopMessageResponseHeader,
} from '../../../src/remoting/protocol/headers/pop-headers.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';

export const quiet = createLogger('test', { level: 'silent' });

export interface PopBroker {
  broker: BrokerController;
  client: RemotingClient;
  close(): Promise<void>;
}

export async function startPopBroker(config: BrokerConfigOverrides = {}): Promise<PopBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-pop-'));
  const broker = createBroker({
    config: {
      storePathRootDir: dir,
      storePathCommitLog: join(dir, 'commitlog'),
      listenPort: 0,
      listenHost: '127.0.0.1',
      brokerIP1: '127.0.0.1',
      namesrvAddr: undefined,
      ...config,
    },
    logger: quiet,
  });
  await broker.start();
  const client = new RemotingClient({ clientChannelMaxIdleTimeSeconds: 0 }, { logger: quiet });
  return {
    broker,
    client,
    async close() {
      await client.close();
      await broker.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function createTopic(broker: BrokerController, topic: string, queues = 4): void {
  broker.topicConfigManager.updateTopicConfig(
    createTopicConfig(topic, { readQueueNums: queues, writeQueueNums: queues }),
  );
}

export interface SendOptions {
  queueId?: number;
  tags?: string;
  properties?: Record<string, string>;
}

export function sendRequest(topic: string, body: string, o: SendOptions = {}): RemotingCommand {
  const props = new Map<string, string>([['WAIT', 'true']]);
  if (o.tags !== undefined) props.set('TAGS', o.tags);
  for (const [k, v] of Object.entries(o.properties ?? {})) props.set(k, v);
  return createRequest(RequestCode.SEND_MESSAGE, {
    extFields: encodeHeader(SendMessageRequestHeader, {
      producerGroup: 'pop_pg',
      topic,
      defaultTopic: 'TBW102',
      defaultTopicQueueNums: 4,
      queueId: o.queueId ?? 0,
      sysFlag: 0,
      bornTimestamp: BigInt(Date.now()),
      flag: 0,
      properties: messageProperties2String(props),
      reconsumeTimes: 0,
      unitMode: false,
      batch: false,
    }),
    body: Buffer.from(body),
  });
}

export type PopInput = Partial<HeaderInputOf<typeof PopMessageRequestHeader>> & {
  consumerGroup: string;
  topic: string;
};

export function popRequest(input: PopInput): RemotingCommand {
  return createRequest(RequestCode.POP_MESSAGE, {
    extFields: encodeHeader(PopMessageRequestHeader, {
      queueId: -1,
      maxMsgNums: 32,
      invisibleTime: 60_000n,
      pollTime: 0n,
      bornTime: BigInt(Date.now()),
      initMode: 0,
      ...input,
    }),
  });
}

export interface Popped {
  response: RemotingCommand;
  header: HeaderOf<typeof PopMessageResponseHeader> | undefined;
  messages: MessageExt[];
  /** Each message's receipt handle, built as the official client builds it (processPopResponse). */
  handles: string[];
}

/** Decodes a POP response and builds the receipt handles the way MQClientAPIImpl.processPopResponse does. */
export function readPop(response: RemotingCommand, brokerName: string): Popped {
  if (response.code !== 0) return { response, header: undefined, messages: [], handles: [] };
  const header = decodeHeader(PopMessageResponseHeader, response.extFields);
  const messages = decodeMessages(response.body ?? Buffer.alloc(0));
  const starts = parseStartOffsetInfo(header.startOffsetInfo) ?? new Map();
  const offsets = parseMsgOffsetInfo(header.msgOffsetInfo) ?? new Map();
  const handles: string[] = [];
  for (const m of messages) {
    const existing = m.getProperty('POP_CK');
    if (existing !== undefined) {
      handles.push(existing);
      continue;
    }
    const key = `${m.topic.startsWith('%RETRY%') ? '1' : '0'}@${m.queueId}`;
    const ck = starts.get(key);
    if (ck === undefined || !(offsets.get(key) ?? []).includes(m.queueOffset))
      throw new Error(`no offset info for ${key}`);
    handles.push(
      buildExtraInfo(
        ck,
        header.popTime,
        header.invisibleTime,
        header.reviveQid,
        m.topic,
        brokerName,
        m.queueId,
        m.queueOffset,
      ),
    );
  }
  return { response, header, messages, handles };
}
