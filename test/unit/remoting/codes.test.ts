import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CURRENT_VERSION,
  DEFAULT_TOPIC,
  MixAll,
  MQVersion,
  mqVersionName,
  mqVersionOrdinal,
  PermName,
  PullSysFlag,
  TopicName,
  TopicSysFlag,
} from '../../../src/common/constants.js';
import { ValidationError } from '../../../src/common/errors.js';
import {
  isKnownLanguage,
  LanguageCode,
  languageByte,
  languageName,
} from '../../../src/remoting/protocol/language-code.js';
import {
  isRequestCode4x,
  isRequestCode5x,
  RequestCode,
  RequestCode4x,
  RequestCode5x,
  RequestCodeLegacy,
  requestCodeName,
} from '../../../src/remoting/protocol/request-code.js';
import {
  isResponseCode5x,
  ResponseCode,
  ResponseCode4x,
  ResponseCode5x,
  ResponseCode5xReused,
  responseCodeName,
} from '../../../src/remoting/protocol/response-code.js';

function assertOneNamePerValue(table: Readonly<Record<string, number>>): void {
  const seen = new Map<number, string>();
  for (const [name, value] of Object.entries(table)) {
    assert.equal(seen.get(value), undefined, `${name} and ${seen.get(value)} share ${value}`);
    seen.set(value, name);
  }
}

describe('RequestCode', () => {
  test('values read in rocketmq-all-4.9.8 RequestCode.java', () => {
    assert.equal(RequestCode.SEND_MESSAGE, 10);
    assert.equal(RequestCode.PULL_MESSAGE, 11);
    assert.equal(RequestCode.QUERY_CONSUMER_OFFSET, 14);
    assert.equal(RequestCode.UPDATE_AND_CREATE_TOPIC, 17);
    assert.equal(RequestCode.HEART_BEAT, 34);
    assert.equal(RequestCode.END_TRANSACTION, 37);
    assert.equal(RequestCode.CHECK_CLIENT_CONFIG, 46);
    assert.equal(RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG, 53);
    assert.equal(RequestCode.GET_BROKER_CLUSTER_INFO, 106);
    assert.equal(RequestCode.GET_KVLIST_BY_NAMESPACE, 219);
    assert.equal(RequestCode.GET_TOPICS_BY_CLUSTER, 224);
    assert.equal(RequestCode.QUERY_TOPIC_CONSUME_BY_WHO, 300);
    assert.equal(RequestCode.SEND_MESSAGE_V2, 310);
    assert.equal(RequestCode.SEND_BATCH_MESSAGE, 320);
    assert.equal(RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, 326);
    assert.equal(RequestCode.DELETE_EXPIRED_COMMITLOG, 329);
    assert.equal(Object.keys(RequestCode4x).length, 95);
  });

  test('5.x and legacy codes', () => {
    assert.equal(RequestCode.LITE_PULL_MESSAGE, 361);
    assert.equal(RequestCode.QUERY_ASSIGNMENT, 400);
    assert.equal(RequestCode.GET_BROKER_MEMBER_GROUP, 901);
    assert.equal(RequestCode.POP_MESSAGE, 200050);
    assert.equal(RequestCode.ACK_MESSAGE, 200051);
    assert.equal(RequestCode.BATCH_ACK_MESSAGE, 200151);
    assert.equal(RequestCode.GET_BROKER_CLUSTER_ACL_CONFIG, 54);
    assert.equal(isRequestCode5x(361), true);
    assert.equal(isRequestCode5x(200050), true);
    assert.equal(isRequestCode5x(310), false);
    assert.equal(isRequestCode5x(54), false);
    assert.equal(isRequestCode4x(310), true);
    assert.equal(isRequestCode4x(54), false);
    assert.equal(isRequestCode4x(361), false);
  });

  test('one name per value across 4.9.8, legacy and 5.x tables', () => {
    assertOneNamePerValue(RequestCode);
    const total =
      Object.keys(RequestCode4x).length +
      Object.keys(RequestCodeLegacy).length +
      Object.keys(RequestCode5x).length;
    assert.equal(Object.keys(RequestCode).length, total);
  });

  test('requestCodeName maps back', () => {
    for (const [name, value] of Object.entries(RequestCode)) assert.equal(requestCodeName(value), name);
    assert.equal(requestCodeName(16), undefined);
    assert.equal(requestCodeName(-1), undefined);
    assert.equal(requestCodeName(1.5), undefined);
  });
});

describe('ResponseCode', () => {
  test('values read in 4.9.8 RemotingSysResponseCode.java and ResponseCode.java', () => {
    assert.equal(ResponseCode.SUCCESS, 0);
    assert.equal(ResponseCode.SYSTEM_ERROR, 1);
    assert.equal(ResponseCode.SYSTEM_BUSY, 2);
    assert.equal(ResponseCode.REQUEST_CODE_NOT_SUPPORTED, 3);
    assert.equal(ResponseCode.TRANSACTION_FAILED, 4);
    assert.equal(ResponseCode.FLUSH_DISK_TIMEOUT, 10);
    assert.equal(ResponseCode.PULL_NOT_FOUND, 19);
    assert.equal(ResponseCode.PULL_OFFSET_MOVED, 21);
    assert.equal(ResponseCode.QUERY_NOT_FOUND, 22);
    assert.equal(ResponseCode.SUBSCRIPTION_NOT_LATEST, 25);
    assert.equal(ResponseCode.FILTER_DATA_NOT_LATEST, 28);
    assert.equal(ResponseCode.TRANSACTION_STATE_UNKNOW, 202);
    assert.equal(ResponseCode.CONSUMER_NOT_ONLINE, 206);
    assert.equal(ResponseCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED, 211);
    assert.equal(ResponseCode.FLOW_CONTROL, 215);
    assert.equal(Object.keys(ResponseCode4x).length, 37);
  });

  test('5.x codes, and 5.x reuses of 4.9.8 values keep the 4.9.8 name', () => {
    assert.equal(ResponseCode.GO_AWAY, 1500);
    assert.equal(ResponseCode.INVALID_PARAMETER, 29);
    assert.equal(isResponseCode5x(1500), true);
    assert.equal(isResponseCode5x(209), false);
    assert.equal(ResponseCode5xReused.POLLING_FULL, 209);
    assert.equal(responseCodeName(209), 'UPDATE_AND_CREATE_ACL_CONFIG_FAILED');
    assert.equal(responseCodeName(210), 'DELETE_ACL_CONFIG_FAILED');
    assert.equal(responseCodeName(211), 'UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED');
    for (const value of Object.values(ResponseCode5xReused)) {
      assert.ok(Object.values(ResponseCode4x).includes(value as never));
    }
  });

  test('one name per value; responseCodeName maps back', () => {
    assertOneNamePerValue(ResponseCode);
    assert.equal(
      Object.keys(ResponseCode).length,
      Object.keys(ResponseCode4x).length + Object.keys(ResponseCode5x).length,
    );
    for (const [name, value] of Object.entries(ResponseCode)) assert.equal(responseCodeName(value), name);
    assert.equal(responseCodeName(5), undefined);
  });
});

describe('LanguageCode', () => {
  test('bytes of 4.9.8 LanguageCode.java, plus NODE_JS from 5.x', () => {
    assert.equal(LanguageCode.JAVA, 0);
    assert.equal(LanguageCode.CPP, 1);
    assert.equal(LanguageCode.OTHER, 7);
    assert.equal(LanguageCode.GO, 9);
    assert.equal(LanguageCode.RUST, 12);
    assert.equal(LanguageCode.NODE_JS, 13);
    assert.equal(Object.keys(LanguageCode).length, 14);
  });

  test('names and bytes convert both ways', () => {
    for (const [name, byte] of Object.entries(LanguageCode)) {
      assert.equal(languageByte(name), byte);
      assert.equal(languageName(byte), name);
    }
  });

  test('every byte round-trips, unknown ones through their decimal string', () => {
    for (let b = 0; b < 256; b++) assert.equal(languageByte(languageName(b)), b);
    assert.equal(languageName(14), '14');
    assert.equal(languageName(255), '255');
    assert.equal(languageName(-1), '255');
  });

  test('unknown names become OTHER', () => {
    assert.equal(languageByte('KOTLIN'), 7);
    assert.equal(languageByte('java'), 7);
    assert.equal(languageByte(''), 7);
    assert.equal(languageByte('256'), 7);
    assert.equal(languageByte('014'), 7);
    assert.equal(languageByte('constructor'), 7);
    assert.equal(isKnownLanguage('JAVA'), true);
    assert.equal(isKnownLanguage('14'), false);
    assert.equal(isKnownLanguage('toString'), false);
  });
});

describe('constants', () => {
  test('PermName', () => {
    assert.deepEqual(
      [PermName.PERM_PRIORITY, PermName.PERM_READ, PermName.PERM_WRITE, PermName.PERM_INHERIT],
      [8, 4, 2, 1],
    );
    assert.equal(PermName.perm2String(6), 'RW-');
    assert.equal(PermName.perm2String(7), 'RWX');
    assert.equal(PermName.perm2String(4), 'R--');
    assert.equal(PermName.perm2String(0), '---');
    assert.equal(PermName.isWriteable(4), false);
    assert.equal(PermName.isReadable(12), true);
  });

  test('TopicSysFlag', () => {
    assert.equal(TopicSysFlag.buildSysFlag(true, true), 3);
    assert.equal(TopicSysFlag.buildSysFlag(false, true), 2);
    assert.equal(TopicSysFlag.clearUnitFlag(3), 2);
    assert.equal(TopicSysFlag.setUnitSubFlag(0), 2);
    assert.equal(TopicSysFlag.hasUnitFlag(2), false);
    assert.equal(TopicSysFlag.hasUnitSubFlag(2), true);
    assert.equal(TopicSysFlag.clearUnitSubFlag(3), 1);
  });

  test('PullSysFlag', () => {
    assert.equal(PullSysFlag.buildSysFlag(false, true, false, false), 2);
    assert.equal(PullSysFlag.buildSysFlag(true, true, true, true), 15);
    assert.equal(PullSysFlag.buildSysFlag(false, true, true, false, true), 0x16);
    assert.equal(PullSysFlag.clearCommitOffsetFlag(3), 2);
    assert.equal(PullSysFlag.hasCommitOffsetFlag(3), true);
    assert.equal(PullSysFlag.hasSuspendFlag(1), false);
    assert.equal(PullSysFlag.hasSubscriptionFlag(4), true);
    assert.equal(PullSysFlag.hasClassFilterFlag(8), true);
    assert.equal(PullSysFlag.hasLitePullFlag(0x10), true);
  });

  test('MixAll and topic names', () => {
    assert.equal(DEFAULT_TOPIC, 'TBW102');
    assert.equal(TopicName.AUTO_CREATE_TOPIC_KEY_TOPIC, 'TBW102');
    assert.equal(TopicName.RMQ_SYS_SCHEDULE_TOPIC, 'SCHEDULE_TOPIC_XXXX');
    assert.equal(MixAll.getRetryTopic('g'), '%RETRY%g');
    assert.equal(MixAll.getDLQTopic('g'), '%DLQ%g');
    assert.equal(MixAll.getReplyTopic('DefaultCluster'), 'DefaultCluster_REPLY_TOPIC');
    assert.equal(MixAll.isSysConsumerGroup('CID_RMQ_SYS_TRANS'), true);
    assert.equal(MixAll.isSysConsumerGroup('g'), false);
    assert.equal(MixAll.isLmq('%LMQ%x'), true);
    assert.equal(MixAll.isLmq(undefined), false);
    assert.equal(MixAll.MASTER_ID, 0n);
    assert.equal(MixAll.brokerVIPChannel(true, '10.0.0.1:10911'), '10.0.0.1:10909');
    assert.equal(MixAll.brokerVIPChannel(false, '10.0.0.1:10911'), '10.0.0.1:10911');
    assert.throws(() => MixAll.brokerVIPChannel(true, '10.0.0.1'), ValidationError);
    assert.throws(() => MixAll.brokerVIPChannel(true, '10.0.0.1:'), ValidationError);
  });

  test('MQVersion ordinals (computed from the 4.9.8 enum)', () => {
    for (const [name, ordinal] of Object.entries(MQVersion)) {
      assert.equal(mqVersionOrdinal(name), ordinal, name);
      assert.equal(mqVersionName(ordinal), name);
    }
    assert.equal(CURRENT_VERSION, 409);
    assert.equal(mqVersionName(0), 'V3_0_0_SNAPSHOT');
    assert.equal(mqVersionName(15), 'V3_0_0_FINAL');
    assert.equal(mqVersionName(16), 'V3_0_1_SNAPSHOT');
    assert.equal(mqVersionName(46), 'V3_1_0_SNAPSHOT');
    assert.equal(mqVersionName(86), 'V3_3_1_SNAPSHOT');
    assert.equal(mqVersionName(410), 'V4_9_9_SNAPSHOT');
    assert.equal(mqVersionName(611), 'V5_9_9');
    assert.equal(mqVersionName(5000), 'HIGHER_VERSION');
    assert.equal(mqVersionName(-1), undefined);
    assert.equal(mqVersionOrdinal('V3_3_0'), undefined);
    assert.equal(mqVersionOrdinal('V4_9_8_SNAPSHOT'), 408);
  });
});
