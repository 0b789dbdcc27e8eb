package org.rocketmqts.interop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Official 4.9.8 producer and push consumers through one name server and broker (ours, in the
 * interop tests), checked message by message; prints one JSON summary line.
 *
 * <pre>
 * TrafficProbe &lt;namesrvAddr&gt; &lt;topic&gt; &lt;group&gt; &lt;count&gt; &lt;timeoutMs&gt;
 * </pre>
 *
 * A warm-up send creates the topic (through TBW102); two push consumers of one group (clustering,
 * "TagA || TagB", from the first offset) start and the probe waits until both hold queues and
 * together hold all of them. Then message i (tag TagA, TagB or TagC by i % 3; keys "k-i"; user
 * properties idx and p = "v-i"; body "body-i-" padded to 100..1100 bytes) is sent: the first quarter
 * sync, the second async, the third oneway, the rest in batches of 32. The probe waits until every
 * TagA/TagB message arrived, then a quiet period for duplicates, and reports counts, per-consumer
 * shares, the first few problems (missing, duplicated, unexpected, corrupted) and timings.
 * Exit 0 when every expected message arrived exactly once, intact, and nothing else did.
 */
public final class TrafficProbe {
    private static final int BATCH = 32;
    private static final long QUIET_MS = 3_000;
    private static final int SHOW = 10;

    private TrafficProbe() {
    }

    private static String pid() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
    }

    static String tagOf(int i) {
        return i % 3 == 0 ? "TagA" : i % 3 == 1 ? "TagB" : "TagC";
    }

    static boolean expected(int i) {
        return i % 3 != 2;
    }

    static String bodyOf(int i) {
        StringBuilder b = new StringBuilder("body-").append(i).append('-');
        int size = 100 + (i * 7919) % 1000;
        while (b.length() < size) {
            b.append((char) ('a' + (b.length() + i) % 26));
        }
        return b.toString();
    }

    static Message messageOf(String topic, int i) {
        Message m = new Message(topic, tagOf(i), "k-" + i, bodyOf(i).getBytes(StandardCharsets.UTF_8));
        m.putUserProperty("idx", Integer.toString(i));
        m.putUserProperty("p", "v-" + i);
        return m;
    }

    public static void main(String[] args) {
        int exit;
        try {
            if (args.length != 5) {
                System.err.println("usage: TrafficProbe <namesrv> <topic> <group> <count> <timeoutMs>");
                exit = 64;
            } else {
                exit = run(args[0], args[1], args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]));
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

    private static final class Seen {
        final AtomicInteger[] counts;
        final AtomicInteger[] perConsumer = {new AtomicInteger(), new AtomicInteger()};
        final List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger unexpected = new AtomicInteger();
        final AtomicInteger corrupted = new AtomicInteger();
        final CountDownLatch all;

        Seen(int count, int expectedCount) {
            counts = new AtomicInteger[count];
            for (int i = 0; i < count; i++) {
                counts[i] = new AtomicInteger();
            }
            all = new CountDownLatch(expectedCount);
        }

        void problem(String p) {
            if (problems.size() < SHOW) {
                problems.add(p);
            }
        }

        void receive(int consumer, MessageExt m, String topic) {
            perConsumer[consumer].incrementAndGet();
            String idxText = m.getUserProperty("idx");
            int i;
            try {
                i = Integer.parseInt(idxText);
            } catch (NumberFormatException e) {
                unexpected.incrementAndGet();
                problem("no idx: " + m.getMsgId() + " tags=" + m.getTags());
                return;
            }
            if (i < 0 || i >= counts.length || !expected(i)) {
                unexpected.incrementAndGet();
                problem("unexpected idx " + i + " tags=" + m.getTags());
                return;
            }
            String body = new String(m.getBody(), StandardCharsets.UTF_8);
            List<String> wrong = new ArrayList<>();
            if (!topic.equals(m.getTopic())) {
                wrong.add("topic=" + m.getTopic());
            }
            if (!tagOf(i).equals(m.getTags())) {
                wrong.add("tags=" + m.getTags());
            }
            if (!("k-" + i).equals(m.getKeys())) {
                wrong.add("keys=" + m.getKeys());
            }
            if (!("v-" + i).equals(m.getUserProperty("p"))) {
                wrong.add("p=" + m.getUserProperty("p"));
            }
            if (!bodyOf(i).equals(body)) {
                wrong.add("body=" + body.substring(0, Math.min(40, body.length())) + "..(" + body.length() + ")");
            }
            if (m.getMsgId() == null || m.getMsgId().length() < 32) {
                wrong.add("msgId=" + m.getMsgId());
            }
            if (!wrong.isEmpty()) {
                corrupted.incrementAndGet();
                problem("corrupted idx " + i + ": " + wrong);
            }
            if (counts[i].incrementAndGet() == 1) {
                all.countDown();
            } else {
                problem("duplicate idx " + i);
            }
        }
    }

    private static DefaultMQPushConsumer consumer(String namesrv, String topic, String group, int n, Seen seen)
        throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(namesrv);
        c.setInstanceName("traffic-consumer-" + n + "-" + pid());
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "TagA || TagB");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt m : msgs) {
                seen.receive(n, m, topic);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        return c;
    }

    /** Queues of the topic the consumer holds (its table also holds the group's retry queue). */
    private static int held(DefaultMQPushConsumer c, String topic) {
        int n = 0;
        for (org.apache.rocketmq.common.message.MessageQueue mq
            : c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().keySet()) {
            if (mq.getTopic().equals(topic)) {
                n++;
            }
        }
        return n;
    }

    private static int run(String namesrv, String topic, String group, int count, long timeoutMs) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        int expectedCount = 0;
        for (int i = 0; i < count; i++) {
            if (expected(i)) {
                expectedCount++;
            }
        }
        Seen seen = new Seen(count, expectedCount);
        DefaultMQProducer producer = new DefaultMQProducer("traffic_pg");
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName("traffic-producer-" + pid());
        producer.setSendMsgTimeout(10_000);
        producer.start();
        DefaultMQPushConsumer c0 = null;
        DefaultMQPushConsumer c1 = null;
        Map<String, Object> out = new LinkedHashMap<>();
        try {
            // Creates the topic (auto-create from TBW102); TagC, so no consumer takes it.
            Message warm = new Message(topic, "TagC", "warm-up".getBytes(StandardCharsets.UTF_8));
            SendResult warmResult = producer.send(warm);
            out.put("warmUp", warmResult.getSendStatus().name());
            int queues = producer.fetchPublishMessageQueues(topic).size();
            out.put("queues", queues);

            c0 = consumer(namesrv, topic, group, 0, seen);
            c1 = consumer(namesrv, topic, group, 1, seen);
            long rebalanceStart = System.nanoTime();
            while (!(held(c0, topic) > 0 && held(c1, topic) > 0 && held(c0, topic) + held(c1, topic) == queues)) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("consumers never held all queues: " + held(c0, topic) + "+" + held(c1, topic));
                }
                Thread.sleep(50);
            }
            out.put("rebalanceMs", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - rebalanceStart));
            out.put("held", java.util.Arrays.asList(held(c0, topic), held(c1, topic)));

            int quarter = count / 4;
            Map<String, Integer> sendFailures = new LinkedHashMap<>();
            AtomicInteger asyncFailures = new AtomicInteger();
            long sendStart = System.nanoTime();
            int i = 0;
            int syncFailures = 0;
            for (; i < quarter; i++) {
                if (producer.send(messageOf(topic, i)).getSendStatus() != SendStatus.SEND_OK) {
                    syncFailures++;
                }
            }
            CountDownLatch asyncDone = new CountDownLatch(quarter);
            for (; i < 2 * quarter; i++) {
                producer.send(messageOf(topic, i), new SendCallback() {
                    @Override
                    public void onSuccess(SendResult r) {
                        if (r.getSendStatus() != SendStatus.SEND_OK) {
                            asyncFailures.incrementAndGet();
                        }
                        asyncDone.countDown();
                    }

                    @Override
                    public void onException(Throwable e) {
                        asyncFailures.incrementAndGet();
                        seen.problem("async send failed: " + e);
                        asyncDone.countDown();
                    }
                });
            }
            for (; i < 3 * quarter; i++) {
                producer.sendOneway(messageOf(topic, i));
            }
            int batchFailures = 0;
            while (i < count) {
                List<Message> batch = new ArrayList<>();
                for (int j = 0; j < BATCH && i < count; j++, i++) {
                    batch.add(messageOf(topic, i));
                }
                if (producer.send(batch).getSendStatus() != SendStatus.SEND_OK) {
                    batchFailures++;
                }
            }
            if (!asyncDone.await(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS)) {
                seen.problem("async sends did not all complete");
            }
            long sendMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sendStart);
            sendFailures.put("sync", syncFailures);
            sendFailures.put("async", asyncFailures.get());
            sendFailures.put("batch", batchFailures);
            out.put("sendFailures", sendFailures);
            out.put("sendMs", sendMs);

            boolean complete = seen.all.await(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
            long consumeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sendStart);
            Thread.sleep(QUIET_MS);
            int missing = 0;
            int duplicated = 0;
            List<Integer> missingShown = new ArrayList<>();
            for (int k = 0; k < count; k++) {
                int n = seen.counts[k].get();
                if (expected(k) && n == 0) {
                    missing++;
                    if (missingShown.size() < SHOW) {
                        missingShown.add(k);
                    }
                }
                if (n > 1) {
                    duplicated++;
                }
            }
            out.put("expected", expectedCount);
            out.put("complete", complete);
            out.put("missing", missing);
            out.put("missingFirst", missingShown);
            out.put("duplicated", duplicated);
            out.put("unexpected", seen.unexpected.get());
            out.put("corrupted", seen.corrupted.get());
            out.put("perConsumer", java.util.Arrays.asList(seen.perConsumer[0].get(), seen.perConsumer[1].get()));
            out.put("problems", new ArrayList<>(seen.problems));
            out.put("consumeMs", consumeMs);
            ProbeOutput.line(out);
            boolean ok = complete && missing == 0 && duplicated == 0 && seen.unexpected.get() == 0
                && seen.corrupted.get() == 0 && syncFailures == 0 && asyncFailures.get() == 0 && batchFailures == 0;
            return ok ? 0 : 1;
        } finally {
            producer.shutdown();
            if (c0 != null) {
                c0.shutdown();
            }
            if (c1 != null) {
                c1.shutdown();
            }
        }
    }
}
