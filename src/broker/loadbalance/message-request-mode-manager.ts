/**
 * MessageRequestModeManager (`broker/.../loadbalance/MessageRequestModeManager.java`): the request
 * mode (PULL or POP, and popShareQueueNum) SET_MESSAGE_REQUEST_MODE gave a topic and group, kept in
 * `<storePathRootDir>/config/messageRequestMode.json` as upstream writes it
 * (`{"messageRequestModeMap":{<topic>:{<group>:{SetMessageRequestModeRequestBody}}}}`, pretty).
 */
import { javaHashMapOrder } from '../../common/fastjson/index.js';
import type { Logger } from '../../common/logger.js';
import {
  decodeMessageRequestModeTable,
  encodeMessageRequestModeTable,
  type MessageRequestModeTable,
  type SetMessageRequestModeRequestBody,
} from '../../common/protocol/set-message-request-mode-body.js';
import { BrokerPathConfig } from '../broker-path-config.js';
import { type ConfigFileIO, ConfigManager } from '../config-manager.js';

export interface MessageRequestModeManagerOptions {
  config: { readonly storePathRootDir: string };
  logger: Logger;
  io?: ConfigFileIO;
}

/** The tables are `new ConcurrentHashMap<>()`s: they iterate like a default HashMap of the same keys. */
function inJavaOrder<V>(map: ReadonlyMap<string, V>): Map<string, V> {
  return new Map(javaHashMapOrder([...map.keys()]).map((k) => [k, map.get(k) as V] as const));
}

export class MessageRequestModeManager extends ConfigManager {
  private readonly config: { readonly storePathRootDir: string };
  private table: MessageRequestModeTable = new Map();

  constructor(options: MessageRequestModeManagerOptions) {
    super(options.logger, options.io);
    this.config = options.config;
  }

  configFilePath(): string {
    return BrokerPathConfig.messageRequestModePath(this.config.storePathRootDir);
  }

  /** Replaces the mode of the body's topic and group (the caller persists). */
  setMessageRequestMode(topic: string, consumerGroup: string, body: SetMessageRequestModeRequestBody): void {
    let groups = this.table.get(topic);
    if (groups === undefined) {
      groups = new Map();
      this.table.set(topic, groups);
    }
    groups.set(consumerGroup, { ...body });
  }

  getMessageRequestMode(
    topic: string,
    consumerGroup: string,
  ): Readonly<SetMessageRequestModeRequestBody> | undefined {
    return this.table.get(topic)?.get(consumerGroup);
  }

  encode(pretty = false): string {
    const ordered: MessageRequestModeTable = new Map();
    for (const [topic, groups] of inJavaOrder(this.table)) ordered.set(topic, inJavaOrder(groups));
    return encodeMessageRequestModeTable(ordered, { pretty });
  }

  /** Upstream replaces the whole table with the file's. */
  protected decode(json: string, file: string): void {
    this.table = decodeMessageRequestModeTable(json, file);
    this.logger.info('message request modes loaded', { topics: this.table.size });
  }
}
