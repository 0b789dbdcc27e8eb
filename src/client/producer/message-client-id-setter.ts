/**
 * MessageClientIDSetter: gives each message its UNIQ_KEY (the msgId consumers see) before its first
 * send attempt, so every retry carries the same id. One generator per process, as upstream's static
 * one: ip | pid | a random int (upstream's class loader hash) | time in the month | counter.
 */

import { ipToBytes } from '../../common/message/host.js';
import type { Message } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { UniqKeyGenerator } from '../../common/message/uniq-key.js';
import { localAddress } from '../../common/platform/local-address.js';

let generator: UniqKeyGenerator | undefined;

function processGenerator(): UniqKeyGenerator {
  generator ??= new UniqKeyGenerator({
    ip: ipToBytes(localAddress()),
    pid: process.pid,
    classLoaderHash: (Math.random() * 0x100000000) | 0,
    now: () => Date.now(),
    timeZone: (t) => -new Date(t).getTimezoneOffset() * 60_000,
  });
  return generator;
}

/** A fresh UNIQ_KEY. */
export function createUniqID(): string {
  return processGenerator().next();
}

/** `setUniqID`: only when the message has none yet. */
export function setUniqID(msg: Message): void {
  if (!msg.properties.has(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)) {
    msg.properties.set(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, createUniqID());
  }
}

export function getUniqID(msg: Message): string | undefined {
  return msg.properties.get(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
}
