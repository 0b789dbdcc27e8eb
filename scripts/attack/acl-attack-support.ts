/**
 * What the admin-files, acl-read-paths, remote-config and metrics-host attack classes share: a name
 * server and broker of ours in this process on free loopback ports and a temp dir (ACL on when an
 * ACL file is given), raw clients signing as an account, and verdict rows.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrokerConfigOverrides } from '../../src/broker/broker-config.js';
import { createLogger } from '../../src/common/logger.js';
import { decodeOffsetMsgId } from '../../src/common/message/message-id.js';
import { type Standalone, startStandalone } from '../../src/embedded/standalone.js';
import { decodeHeader } from '../../src/remoting/protocol/header-schema.js';
import { SendMessageResponseHeader } from '../../src/remoting/protocol/headers/index.js';
import { AclClientRPCHook } from '../../src/remoting/transport/acl-client-rpc-hook.js';
import { RemotingClient } from '../../src/remoting/transport/index.js';
import type { AttackVerdict } from './attack-class.js';
import { sendToTopic } from './raw-requests.js';

export const silent = createLogger('attack', { level: 'silent' });

export interface Target extends Standalone {
  /** The temp dir holding the store (`store/`) and anything the class writes. */
  readonly dir: string;
}

export interface Credentials {
  readonly accessKey: string;
  readonly secretKey: string;
}

/** Starts a name server and broker on 127.0.0.1; with `aclFile`, ACL on over that plain_acl.yml. */
export async function startTarget(
  prefix: string,
  overrides: BrokerConfigOverrides = {},
  aclFile?: string,
): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), `rmq-attack-${prefix}-`));
  const acl: BrokerConfigOverrides = {};
  if (aclFile !== undefined) {
    mkdirSync(join(dir, 'home', 'conf'), { recursive: true });
    writeFileSync(join(dir, 'home', 'conf', 'plain_acl.yml'), aclFile);
    Object.assign(acl, { aclEnable: true, rocketmqHome: join(dir, 'home') });
  }
  try {
    const s = await startStandalone({
      dataDir: join(dir, 'store'),
      namesrvPort: 0,
      host: '127.0.0.1',
      broker: {
        listenPort: 0,
        brokerIP1: '127.0.0.1',
        brokerIP2: '127.0.0.1',
        mappedFileSizeCommitLog: 1 << 20,
        mappedFileSizeConsumeQueue: 60_000,
        ...acl,
        ...overrides,
      },
      logger: silent,
    });
    return {
      namesrv: s.namesrv,
      broker: s.broker,
      namesrvAddr: s.namesrvAddr,
      brokerAddr: s.brokerAddr,
      dir,
      async close() {
        try {
          await s.close();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** A remoting client, signing as `credentials` when given. Close it. */
export function rawClient(credentials?: Credentials): RemotingClient {
  const c = new RemotingClient({}, { logger: silent });
  if (credentials !== undefined) c.registerRPCHook(new AclClientRPCHook(credentials));
  return c;
}

/** One verdict row. */
export function verdict(attack: string, name: string, held: boolean, figure: string): AttackVerdict {
  return { attack, case: name, verdict: held ? 'held' : 'breached', figure };
}

export interface Stored {
  /** The offset message id (store host + commit-log offset). */
  readonly offsetMsgId: string;
  readonly commitLogOffset: bigint;
  readonly queueId: number;
  readonly queueOffset: bigint;
}

/** sendToTopic, answered: where the message was stored. */
export async function rawSend(
  client: RemotingClient,
  brokerAddr: string,
  topic: string,
  body: Buffer,
  properties: ReadonlyMap<string, string>,
): Promise<Stored> {
  const request = sendToTopic(topic, body, properties);
  const response = await client.invoke(brokerAddr, request);
  if (response.code !== 0) throw new Error(`send to ${topic} failed: ${response.code} ${response.remark}`);
  const h = decodeHeader(SendMessageResponseHeader, response.extFields);
  return {
    offsetMsgId: h.msgId,
    commitLogOffset: decodeOffsetMsgId(h.msgId).offset,
    queueId: h.queueId,
    queueOffset: h.queueOffset,
  };
}
