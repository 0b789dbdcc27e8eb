package org.rocketmqts.interop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * The official 4.9.8 TransactionMQProducer against a broker (ours, in the interop tests), with an
 * official push consumer on the same topic. Prints one JSON line and exits 0 when it ran to the end
 * (the test judges the figures).
 *
 * <pre>
 * TransactionProbe &lt;namesrv&gt; &lt;topic&gt; &lt;producerGroup&gt; &lt;transactionCheckMax&gt; &lt;timeoutMs&gt;
 * </pre>
 *
 * One transactional message per key; the key's kind (the "want" property) decides the local
 * transaction and the answer to the broker's checks:
 * <ul>
 * <li>commit-*: COMMIT_MESSAGE at once; rollback-*: ROLLBACK_MESSAGE at once;</li>
 * <li>check-commit-* / check-rollback-*: UNKNOW at once, COMMIT_MESSAGE / ROLLBACK_MESSAGE when checked;</li>
 * <li>throw-*: the local transaction throws (the client ends it as unknown), COMMIT_MESSAGE when checked;</li>
 * <li>check-never-*: UNKNOW every time, until the broker gives up after transactionCheckMax checks.</li>
 * </ul>
 * Reports every delivery, every check the producer got and every send result; waits until all the
 * expected deliveries and checks happened, then 4 s more for anything that should not come.
 */
public final class TransactionProbe {
    private static final List<String> KEYS = Arrays.asList(
        "commit-0", "commit-1", "rollback-0", "rollback-1", "check-commit-0", "check-commit-1",
        "check-rollback-0", "check-rollback-1", "throw-0", "check-never-0");
    private static final List<String> DELIVERED = Arrays.asList(
        "commit-0", "commit-1", "check-commit-0", "check-commit-1", "throw-0");

    private TransactionProbe() {
    }

    private static String pid() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
    }

    public static void main(String[] args) {
        int exit;
        try {
            if (args.length == 5) {
                exit = run(args[0], args[1], args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]));
            } else {
                System.err.println("usage: see the class comment");
                exit = 64;
            }
        } catch (Throwable e) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("error", e.getClass().getName());
            m.put("message", String.valueOf(e.getMessage()));
            ProbeOutput.line(m);
            e.printStackTrace();
            exit = 2;
        }
        System.exit(exit);
    }

    private static String kind(Message m) {
        String want = m.getUserProperty("want");
        return want == null ? "" : want;
    }

    private static int count(List<Map<String, Object>> list, String key) {
        int n = 0;
        synchronized (list) {
            for (Map<String, Object> e : list) {
                if (key.equals(e.get("key"))) {
                    n++;
                }
            }
        }
        return n;
    }

    private static int run(String namesrv, String topic, String group, int checkMax, long timeoutMs)
        throws Exception {
        final List<Map<String, Object>> received = Collections.synchronizedList(new ArrayList<>());
        final List<Map<String, Object>> checks = Collections.synchronizedList(new ArrayList<>());
        final List<Map<String, Object>> sends = new ArrayList<>();
        final long start = System.currentTimeMillis();

        TransactionMQProducer p = new TransactionMQProducer(group);
        p.setNamesrvAddr(namesrv);
        p.setInstanceName("tx-producer-" + pid());
        p.setSendMsgTimeout(10_000);
        p.setTransactionListener(new TransactionListener() {
            @Override
            public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
                String k = kind(msg);
                if (k.startsWith("commit")) {
                    return LocalTransactionState.COMMIT_MESSAGE;
                }
                if (k.startsWith("rollback")) {
                    return LocalTransactionState.ROLLBACK_MESSAGE;
                }
                if (k.startsWith("throw")) {
                    throw new IllegalStateException("local transaction fails on purpose");
                }
                return LocalTransactionState.UNKNOW;
            }

            @Override
            public LocalTransactionState checkLocalTransaction(MessageExt msg) {
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("key", msg.getKeys());
                c.put("topic", msg.getTopic());
                c.put("queueId", msg.getQueueId());
                c.put("checkTimes", msg.getProperty("TRANSACTION_CHECK_TIMES"));
                c.put("transactionId", msg.getTransactionId());
                c.put("body", new String(msg.getBody(), StandardCharsets.UTF_8));
                c.put("atMs", System.currentTimeMillis() - start);
                checks.add(c);
                String k = kind(msg);
                if (k.startsWith("check-commit") || k.startsWith("throw")) {
                    return LocalTransactionState.COMMIT_MESSAGE;
                }
                if (k.startsWith("check-rollback")) {
                    return LocalTransactionState.ROLLBACK_MESSAGE;
                }
                return LocalTransactionState.UNKNOW;
            }
        });
        p.start();

        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group + "_cg");
        c.setNamesrvAddr(namesrv);
        c.setInstanceName("tx-consumer-" + pid());
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt m : msgs) {
                if (m.getUserProperty("want") == null) {
                    continue;
                }
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("key", m.getKeys());
                r.put("body", new String(m.getBody(), StandardCharsets.UTF_8));
                r.put("topic", m.getTopic());
                r.put("queueId", m.getQueueId());
                r.put("reconsumeTimes", m.getReconsumeTimes());
                r.put("msgId", m.getMsgId());
                r.put("tranMsg", m.getProperty("TRAN_MSG"));
                r.put("pgroup", m.getProperty("PGROUP"));
                r.put("checkTimes", m.getProperty("TRANSACTION_CHECK_TIMES"));
                r.put("sysFlag", m.getSysFlag());
                r.put("preparedTransactionOffset", Long.toString(m.getPreparedTransactionOffset()));
                received.add(r);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });

        Map<String, Object> out = new LinkedHashMap<>();
        try {
            // The topic exists and the consumer pulls it before the first transaction.
            p.send(new Message(topic, "warm", "warm-up".getBytes(StandardCharsets.UTF_8)));
            c.start();
            long deadline = start + timeoutMs;
            while (!holds(c, topic)) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("the consumer never held " + topic);
                }
                Thread.sleep(100);
            }
            for (String key : KEYS) {
                Message m = new Message(topic, "TagTx", key, ("tx-" + key).getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("want", key);
                TransactionSendResult r = p.sendMessageInTransaction(m, null);
                Map<String, Object> s = new LinkedHashMap<>();
                s.put("key", key);
                s.put("sendStatus", String.valueOf(r.getSendStatus()));
                s.put("localState", String.valueOf(r.getLocalTransactionState()));
                s.put("transactionId", r.getTransactionId());
                s.put("msgId", r.getMsgId());
                s.put("queueOffset", r.getQueueOffset());
                sends.add(s);
            }
            boolean complete = false;
            while (System.currentTimeMillis() < deadline) {
                boolean all = true;
                for (String key : DELIVERED) {
                    all &= count(received, key) > 0;
                }
                all &= count(checks, "check-rollback-0") > 0 && count(checks, "check-rollback-1") > 0;
                all &= count(checks, "check-never-0") >= checkMax;
                if (all) {
                    complete = true;
                    break;
                }
                Thread.sleep(100);
            }
            out.put("complete", complete);
            // Whatever arrives now should not have: rollbacks, duplicates, a check past the limit.
            Thread.sleep(4_000);
        } finally {
            p.shutdown();
            c.shutdown();
        }
        out.put("sends", sends);
        out.put("received", new ArrayList<>(received));
        out.put("checks", new ArrayList<>(checks));
        ProbeOutput.line(out);
        return 0;
    }

    private static boolean holds(DefaultMQPushConsumer c, String topic) {
        for (org.apache.rocketmq.common.message.MessageQueue mq
            : c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().keySet()) {
            if (mq.getTopic().equals(topic)) {
                return true;
            }
        }
        return false;
    }
}
