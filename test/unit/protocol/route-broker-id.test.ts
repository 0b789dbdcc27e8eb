/**
 * Broker ids in brokerAddrs are Java longs: only their decimal text is one. Number() alone took " ",
 * "" and "0x1" for ids, and the re-encoded body then differed from the first encoding (found by
 * `npm run fuzz -- --targets bodies`, seed 20261203).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { decodeClusterInfo, decodeTopicRouteData } from '../../../src/common/protocol/route.js';

const route = (addrs: string): Buffer =>
  Buffer.from(
    `{"brokerDatas":[{"brokerAddrs":${addrs},"brokerName":"b","cluster":"c"}],"filterServerTable":{},"queueDatas":[]}`,
  );

test('brokerAddrs keys that are not decimal longs are refused', () => {
  for (const key of [' ', '', '0x1', '1e2', '+1', '01', '-0']) {
    assert.throws(
      () => decodeTopicRouteData(route(`{${JSON.stringify(key)}:"127.0.0.1:10911"}`)),
      RemotingCommandError,
      JSON.stringify(key),
    );
  }
  assert.throws(
    () =>
      decodeClusterInfo(
        Buffer.from(
          '{"brokerAddrTable":{"b":{"brokerAddrs":{" ":"a"},"brokerName":"b","cluster":"c"}},"clusterAddrTable":{}}',
        ),
      ),
    RemotingCommandError,
  );
});

test('decimal broker ids, bare or quoted, still decode', () => {
  const r = decodeTopicRouteData(route('{0:"127.0.0.1:10911","1":"127.0.0.2:10911",-1:"x"}'));
  assert.deepEqual(
    [...(r.brokerDatas[0]?.brokerAddrs ?? new Map())].sort(([a], [b]) => a - b),
    [
      [-1, 'x'],
      [0, '127.0.0.1:10911'],
      [1, '127.0.0.2:10911'],
    ],
  );
});
