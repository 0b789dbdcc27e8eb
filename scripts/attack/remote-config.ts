/**
 * remote-config: with ACL off (the default), unsigned UPDATE_BROKER_CONFIG requests try each key
 * that deletes or hides stored data (upstream deletes 7 of 8 commit-log files within 20 s after
 * diskMaxUsedSpaceRatio=0 and fileReservedTime=0). Held when each is refused, the broker's settings
 * are unchanged, and after several cleanup rounds every commit-log file is still there.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createTopicConfig } from '../../src/common/protocol/topic-config.js';
import { createRequest } from '../../src/remoting/protocol/command.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { rawClient, rawSend, startTarget, verdict } from './acl-attack-support.js';
import type { AttackClass, AttackVerdict } from './attack-class.js';

const NAME = 'remote-config';
/** The cleanup service runs this often here, so several rounds pass within the wait. */
const CLEAN_INTERVAL_MS = 100;

const ATTACKS = [
  'diskMaxUsedSpaceRatio=0\nfileReservedTime=0',
  'deleteWhen=00;01;02;03;04;05;06;07;08;09;10;11;12;13;14;15;16;17;18;19;20;21;22;23',
  'brokerPermission=0',
  'maxMessageSize=1',
];

export const remoteConfig: AttackClass = {
  name: NAME,
  async run(options) {
    const target = await startTarget(NAME, { cleanResourceInterval: CLEAN_INTERVAL_MS });
    const client = rawClient();
    const rows: AttackVerdict[] = [];
    try {
      const addr = target.brokerAddr;
      target.broker.topicConfigManager.updateTopicConfig(
        createTopicConfig('AttackRetention', { readQueueNums: 1, writeQueueNums: 1 }),
      );
      // A few 1 MiB commit-log files: what retention would delete.
      const body = Buffer.alloc(200 << 10, 0x61);
      for (let i = 0; i < 16; i++) await rawSend(client, addr, 'AttackRetention', body, new Map());
      const commitLogDir = join(target.dir, 'store', 'commitlog');
      const filesBefore = readdirSync(commitLogDir).length;
      const before = { ...target.broker.storeConfig };
      const permBefore = target.broker.config.brokerPermission;
      for (const attack of ATTACKS) {
        const r = await client.invoke(
          addr,
          createRequest(RequestCode.UPDATE_BROKER_CONFIG, { body: Buffer.from(attack) }),
        );
        const s = target.broker.storeConfig;
        const unchanged =
          s.diskMaxUsedSpaceRatio === before.diskMaxUsedSpaceRatio &&
          s.fileReservedTime === before.fileReservedTime &&
          s.deleteWhen === before.deleteWhen &&
          s.maxMessageSize === before.maxMessageSize &&
          target.broker.config.brokerPermission === permBefore;
        rows.push(
          verdict(
            NAME,
            `unsigned ${attack
              .split('\n')
              .map((l) => l.slice(0, 24))
              .join(' ')}`,
            r.code !== 0 && unchanged,
            `code ${r.code}${unchanged ? ', settings unchanged' : ', SETTINGS CHANGED'}`,
          ),
        );
      }
      await new Promise((r) => setTimeout(r, (options.short ? 5 : 20) * CLEAN_INTERVAL_MS));
      const filesAfter = readdirSync(commitLogDir).length;
      rows.push(
        verdict(
          NAME,
          'commit-log files after the cleanup rounds',
          filesAfter >= filesBefore,
          `${filesBefore} -> ${filesAfter} files`,
        ),
      );
    } finally {
      await client.close();
      await target.close();
    }
    return rows;
  },
};
