/** Fuzz target for the fastjson-compatible body parser and emitter. */
import { RemotingCommandError } from '../../src/common/errors.js';
import { fuzzFastjson } from '../../src/common/fastjson/fuzz-target.js';
import { parseFastjson } from '../../src/common/fastjson/index.js';
import type { FuzzTarget } from './engine.js';

const samples = [
  '{"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}',
  '{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"127.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}},"clusterAddrTable":{"DefaultCluster":["broker-a"]}}',
  '{"consumeTps":0.0,"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{"brokerOffset":120,"consumerOffset":118,"lastTimestamp":1700000000000}}}',
  '{\n\t"offsetTable":{\n\t\t"T@g":{0:118,1:57\n\t\t}\n\t}\n}',
  '{"clientID":"10.0.0.5@12345#987654321","consumerDataSet":[{"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","subscriptionDataSet":[{"codeSet":[2598919,-1234],"subVersion":9007199254740993,"tagsSet":["TagA"],"topic":"T"}],"unitMode":false}],"producerDataSet":[{"groupName":"pg"}]}',
  '{\'single\':\'quoted\', bare: true, "esc":"\\u0001\\u00e9\\ud83d\\ude00", "n":-1.5e10}',
];

export const fastjsonTarget: FuzzTarget = {
  id: 'fastjson',
  name: 'fastjson body parser',
  seeds: samples.map((s) => Buffer.from(s)),
  run: (input) => {
    fuzzFastjson(input);
    // fuzzFastjson swallows typed parse errors; parse once more so the rejection and its class count.
    parseFastjson(input);
  },
  isExpected: (err) => err instanceof RemotingCommandError,
};
