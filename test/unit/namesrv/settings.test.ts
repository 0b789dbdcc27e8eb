/** Name server settings: upstream defaults, overrides, and refusal of values that cannot work. */
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ValidationError } from '../../../src/common/errors.js';
import { createNamesrv } from '../../../src/namesrv/namesrv-controller.js';
import { namesrvSettings } from '../../../src/namesrv/namesrv-settings.js';
import { quiet } from './helpers.js';

describe('NamesrvSettings', () => {
  test('upstream defaults', () => {
    const s = namesrvSettings();
    assert.equal(s.listenPort, 9876);
    assert.equal(s.kvConfigPath, join(homedir(), 'namesrv', 'kvConfig.json'));
    assert.equal(s.orderMessageEnable, false);
    assert.equal(s.productEnvName, 'center');
    assert.equal(s.scanNotActiveBrokerInterval, 10_000);
    assert.equal(s.scanNotActiveBrokerDelay, 5_000);
    assert.equal(s.brokerChannelExpiredTime, 120_000);
    assert.equal(s.listenHost, undefined);
  });

  test('createNamesrv options override settings; nothing starts before start()', async () => {
    const ns = createNamesrv({
      listenPort: 0,
      kvConfigPath: '/x/kv.json',
      logger: quiet,
      settings: { listenPort: 1234, kvConfigPath: '/y/kv.json', brokerChannelExpiredTime: 5 },
    });
    assert.equal(ns.settings.listenPort, 0);
    assert.equal(ns.settings.kvConfigPath, '/x/kv.json');
    assert.equal(ns.settings.brokerChannelExpiredTime, 5);
    assert.equal(ns.address, undefined);
    await ns.shutdown();
  });

  test('values that cannot work are refused, naming the setting', () => {
    const bad: Array<[Parameters<typeof namesrvSettings>[0], RegExp]> = [
      [{ listenPort: 70000 }, /listenPort/],
      [{ listenPort: 1.5 }, /listenPort/],
      [{ scanNotActiveBrokerInterval: 0 }, /scanNotActiveBrokerInterval/],
      [{ brokerChannelExpiredTime: Number.NaN }, /brokerChannelExpiredTime/],
      [{ maxRegisterBodyInflatedSize: -1 }, /maxRegisterBodyInflatedSize/],
      [{ scanNotActiveBrokerDelay: -1 }, /scanNotActiveBrokerDelay/],
      [{ kvConfigPath: '' }, /kvConfigPath/],
    ];
    for (const [overrides, message] of bad) {
      assert.throws(
        () => namesrvSettings(overrides),
        (e: unknown) => {
          assert.ok(e instanceof ValidationError);
          assert.match(e.message, message);
          return true;
        },
      );
    }
  });
});
