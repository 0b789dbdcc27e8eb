package org.rocketmqts.interop;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageClientExt;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The official 4.9.8 DefaultMQPushConsumer (clustering, from the first offset) on one topic, reporting
 * every message it receives exactly as the client hands it over; for tests whose sender is not Java
 * (our producer). Works against the 4.9.x and 5.x brokers alike.
 *
 * <pre>
 * PushConsumerProbe &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; &lt;expression&gt; &lt;count&gt; &lt;timeoutMs&gt;
 *                   [--sql] [--queues n] [--poll-namesrv-ms ms] [--rebalance-ms ms]
 * </pre>
 *
 * The client's name server poll [1000 ms here, 30 s upstream] and rebalance period [1000 ms here, 20 s
 * upstream] are short so that a topic created, or a broker restarted, after the start is picked up
 * within a second.
 *
 * Prints, one JSON object per line:
 * <ul>
 * <li>{"ready":true,"clientId":..,"queues":n} once the consumer holds at least `--queues` [1] queues of
 * the topic (it keeps asking the name server every `--poll-namesrv-ms` [1000] ms, so a topic created
 * after the start is found quickly);</li>
 * <li>{"msg":{...}} per delivery: topic, tags, keys, every property, body length and SHA-256 (and hex
 * when at most 1 KiB), msgId (UNIQ_KEY when present), offsetMsgId, brokerName, queueId, queueOffset,
 * commitLogOffset, reconsumeTimes, bornTimestamp, storeTimestamp, receivedAt (this JVM's clock), sysFlag;</li>
 * <li>{"done":true,...} once `count` distinct msgIds arrived, or at the timeout (with `count` 0 only
 * then, or at a SIGTERM): distinct and total deliveries, whether the count was reached (always true
 * with `count` 0).</li>
 * </ul>
 * Exit 0 when the count was reached (or was 0), 1 on timeout, 2 on a start failure (with an
 * {"error":..} line), 64 on bad arguments. Every delivery is acknowledged (CONSUME_SUCCESS).
 */
public final class PushConsumerProbe {
    private static final int BODY_HEX_MAX = 1024;

    private final Set<String> distinct = ConcurrentHashMap.newKeySet();
    private final AtomicInteger deliveries = new AtomicInteger();
    private final AtomicBoolean summarized = new AtomicBoolean();
    private final CountDownLatch reached;
    private final int count;
    private final long startedAt = System.currentTimeMillis();

    private PushConsumerProbe(int count) {
        this.count = count;
        this.reached = new CountDownLatch(1);
    }

    private static String pid() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
    }

    private static String option(String[] args, String name, String fallback) {
        for (int i = 6; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    private static boolean flag(String[] args, String name) {
        for (int i = 6; i < args.length; i++) {
            if (args[i].equals(name)) {
                return true;
            }
        }
        return false;
    }

    public static void main(String[] args) {
        if (args.length < 6) {
            System.err.println("usage: see the class comment");
            System.exit(64);
        }
        int exit;
        try {
            PushConsumerProbe probe = new PushConsumerProbe(Integer.parseInt(args[4]));
            exit = probe.run(args);
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

    private int run(String[] args) throws Exception {
        String namesrv = args[0];
        String topic = args[1];
        String group = args[2];
        String expression = args[3];
        long timeoutMs = Long.parseLong(args[5]);
        int wantQueues = Integer.parseInt(option(args, "--queues", "1"));
        long deadline = startedAt + timeoutMs;
        // RebalanceService reads it once, when the client instance is made (in start()).
        System.setProperty("rocketmq.client.rebalance.waitInterval", option(args, "--rebalance-ms", "1000"));

        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(namesrv);
        c.setInstanceName("push-probe-" + pid());
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.setPollNameServerInterval(Integer.parseInt(option(args, "--poll-namesrv-ms", "1000")));
        if (flag(args, "--sql")) {
            c.subscribe(topic, MessageSelector.bySql(expression));
        } else {
            c.subscribe(topic, expression);
        }
        c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt m : msgs) {
                report(m);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        // A SIGTERM (the test closing a consumer it kept running) still gets its summary line.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> summary(false), "probe-summary"));
        try {
            c.start();
        } catch (MQClientException e) {
            throw new IllegalStateException("consumer start failed: " + e.getMessage(), e);
        }
        int held = 0;
        while ((held = heldQueues(c, topic)) < wantQueues) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("the consumer held " + held + " queues of " + topic
                    + ", not " + wantQueues + ", within the timeout");
            }
            Thread.sleep(50);
        }
        Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("ready", true);
        ready.put("clientId", c.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId());
        ready.put("queues", held);
        ProbeOutput.line(ready);

        long left = Math.max(1, deadline - System.currentTimeMillis());
        boolean complete;
        if (count > 0) {
            complete = reached.await(left, TimeUnit.MILLISECONDS);
        } else {
            // No count: deliver until the timeout (or a SIGTERM), which is the expected end.
            Thread.sleep(left);
            complete = true;
        }
        summary(complete);
        c.shutdown();
        return complete ? 0 : 1;
    }

    private static int heldQueues(DefaultMQPushConsumer c, String topic) {
        int n = 0;
        for (MessageQueue mq : c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().keySet()) {
            if (mq.getTopic().equals(topic)) {
                n++;
            }
        }
        return n;
    }

    private void report(MessageExt m) {
        byte[] body = m.getBody() == null ? new byte[0] : m.getBody();
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("topic", m.getTopic());
        d.put("tags", m.getTags());
        d.put("keys", m.getKeys());
        d.put("properties", m.getProperties() == null ? null : new TreeMap<>(m.getProperties()));
        d.put("bodyLength", body.length);
        d.put("bodySha256", sha256(body));
        if (body.length <= BODY_HEX_MAX) {
            d.put("bodyHex", Hex.of(body));
        }
        d.put("msgId", m.getMsgId());
        d.put("offsetMsgId", m instanceof MessageClientExt ? ((MessageClientExt) m).getOffsetMsgId() : null);
        d.put("brokerName", m.getBrokerName());
        d.put("queueId", m.getQueueId());
        d.put("queueOffset", m.getQueueOffset());
        d.put("commitLogOffset", m.getCommitLogOffset());
        d.put("reconsumeTimes", m.getReconsumeTimes());
        d.put("bornTimestamp", m.getBornTimestamp());
        d.put("storeTimestamp", m.getStoreTimestamp());
        d.put("receivedAt", System.currentTimeMillis());
        d.put("sysFlag", m.getSysFlag());
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("msg", d);
        ProbeOutput.line(line);
        deliveries.incrementAndGet();
        if (m.getMsgId() != null && distinct.add(m.getMsgId()) && count > 0 && distinct.size() >= count) {
            reached.countDown();
        }
    }

    private void summary(boolean complete) {
        if (!summarized.compareAndSet(false, true)) {
            return;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("done", true);
        out.put("complete", complete);
        out.put("distinct", distinct.size());
        out.put("deliveries", deliveries.get());
        out.put("elapsedMs", System.currentTimeMillis() - startedAt);
        ProbeOutput.line(out);
    }

    private static String sha256(byte[] bytes) {
        try {
            return Hex.of(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
