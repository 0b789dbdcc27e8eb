/**
 * The official 4.9.8 TransactionMQProducer against our broker, with an official push consumer on
 * the topic (interop TransactionProbe): committed transactions are delivered once, rolled-back ones
 * never; open ones are checked by our broker (CHECK_TRANSACTION_STATE) and the producer's
 * checkLocalTransaction answer decides them; one never decided goes to TRANS_CHECK_MAX_TIME_TOPIC
 * after transactionCheckMax checks. The broker checks every second with a 3 s timeout here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeMessage } from '../../src/common/message/stored-format.js';
import { MessageSysFlag } from '../../src/common/message/sysflag.js';
import { TopicValidator } from '../../src/common/validators.js';
import { runJava } from './harness.js';
import { type LoopbackPair, startLoopbackPair } from './loopback-pair.js';

const CHECK_MAX = 3;

interface Received {
  key: string;
  body: string;
  topic: string;
  queueId: number;
  reconsumeTimes: number;
  tranMsg: string | null;
  pgroup: string | null;
  checkTimes: string | null;
  sysFlag: number;
}

interface Check {
  key: string;
  topic: string;
  queueId: number;
  checkTimes: string | null;
  transactionId: string | null;
  body: string;
}

interface Sent {
  key: string;
  sendStatus: string;
  localState: string;
  transactionId: string | null;
  queueOffset: number;
}

describe('official TransactionMQProducer against our broker', () => {
  let pair: LoopbackPair;

  before(async () => {
    pair = await startLoopbackPair('tx', {
      transactionCheckInterval: 1000,
      transactionTimeOut: 3000,
      transactionCheckMax: CHECK_MAX,
    });
  });

  after(async () => {
    await pair?.close();
  });

  test('COMMIT_MESSAGE delivered once, ROLLBACK_MESSAGE never, UNKNOW decided by checkLocalTransaction', {
    timeout: 150_000,
  }, async () => {
    const topic = 'TxTopic';
    const r = await runJava(
      'org.rocketmqts.interop.TransactionProbe',
      [pair.namesrvAddr, topic, 'tx_pg', String(CHECK_MAX), '90000'],
      { timeoutMs: 140_000 },
    );
    const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
    assert.ok(
      line,
      `TransactionProbe printed nothing (exit ${String(r.exitCode)})\n${r.stderr.slice(-4000)}`,
    );
    const out = JSON.parse(line) as {
      error?: string;
      complete: boolean;
      sends: Sent[];
      received: Received[];
      checks: Check[];
    };
    assert.equal(out.error, undefined, `${line}\n${r.stderr.slice(-4000)}`);
    assert.equal(out.complete, true, line);

    // Every half message was accepted; the local states are what the listener returned.
    assert.equal(out.sends.length, 10);
    for (const s of out.sends) {
      assert.equal(s.sendStatus, 'SEND_OK', JSON.stringify(s));
      const expected = s.key.startsWith('commit')
        ? 'COMMIT_MESSAGE'
        : s.key.startsWith('rollback')
          ? 'ROLLBACK_MESSAGE'
          : 'UNKNOW';
      assert.equal(s.localState, expected, JSON.stringify(s));
    }

    // Delivered: committed at once or after the check, each exactly once, in its real topic.
    const keys = out.received.map((m) => m.key).sort();
    assert.deepEqual(keys, ['check-commit-0', 'check-commit-1', 'commit-0', 'commit-1', 'throw-0']);
    for (const m of out.received) {
      assert.equal(m.topic, topic);
      assert.equal(m.body, `tx-${m.key}`);
      assert.equal(m.reconsumeTimes, 0);
      assert.equal(m.pgroup, 'tx_pg');
      // As upstream stores it: the half message's properties, TRAN_MSG included.
      assert.equal(m.tranMsg, 'true');
      assert.equal(m.sysFlag & 0xc, MessageSysFlag.TRANSACTION_COMMIT_TYPE, JSON.stringify(m));
      // Decided after a check: the delivered message is the checked copy.
      assert.equal(m.checkTimes, m.key.startsWith('commit') ? null : '1', JSON.stringify(m));
    }

    // Checks: only the open transactions, with the message as sent (real topic and queue).
    const checked = new Map<string, Check[]>();
    for (const c of out.checks) checked.set(c.key, [...(checked.get(c.key) ?? []), c]);
    assert.deepEqual([...checked.keys()].sort(), [
      'check-commit-0',
      'check-commit-1',
      'check-never-0',
      'check-rollback-0',
      'check-rollback-1',
      'throw-0',
    ]);
    for (const [key, list] of checked) {
      const first = list[0];
      assert.ok(first !== undefined);
      assert.equal(first.topic, topic, key);
      assert.equal(first.body, `tx-${key}`);
      assert.equal(first.checkTimes, '1', key);
      assert.ok(first.transactionId !== null && first.transactionId !== '', key);
      if (key !== 'check-never-0') assert.equal(list.length, 1, `${key}: ${JSON.stringify(list)}`);
    }
    const never = checked.get('check-never-0') ?? [];
    assert.deepEqual(
      never.map((c) => c.checkTimes),
      Array.from({ length: CHECK_MAX }, (_, i) => String(i + 1)),
    );

    // The one never decided went to TRANS_CHECK_MAX_TIME_TOPIC.
    const store = pair.broker.messageStore;
    const found = await store.getMessage(
      'check',
      TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC,
      0,
      0n,
      32,
    );
    const discarded = found.messages.map((m) => decodeMessage(m));
    assert.deepEqual(
      discarded.map((m) => m.keys),
      ['check-never-0'],
    );
    assert.equal(discarded[0]?.getProperty('REAL_TOPIC'), topic);
    assert.equal(discarded[0]?.getProperty('TRANSACTION_CHECK_TIMES'), String(CHECK_MAX));
  });
});
