package org.rocketmqts.interop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * The official 4.9.8 push consumer's failure, delay, filter and order features against a broker
 * (ours, in the interop tests). Each mode prints one JSON line and exits 0 when it ran to the end
 * (the test judges the figures).
 *
 * <pre>
 * ConsumeFeaturesProbe retry   &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; &lt;maxReconsumeTimes&gt; &lt;how&gt; &lt;timeoutMs&gt;
 *     one message; the listener fails it every time (how: later | throw | null); reports each delivery's
 *     reconsumeTimes and seconds since the first, the message's uniq id, then waits for the retries to end.
 * ConsumeFeaturesProbe delay   &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; &lt;levels,comma&gt; &lt;timeoutMs&gt;
 *     one message per level; reports each one's lateness: arrival minus (store time + level delay),
 *     and the consumer's getDelayTimeLevel() of it.
 * ConsumeFeaturesProbe sql     &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; &lt;expression&gt; &lt;timeoutMs&gt;
 *     20 messages with properties a = i, b = (x|y), c set on even i only; reports the indexes received
 *     after a quiet period, or the subscription's start error.
 * ConsumeFeaturesProbe serve   &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; &lt;seconds&gt;
 *     a push consumer that stays up: prints {"clientId":..} once started, then {"received":body,
 *     "reconsumeTimes":n} per message as it arrives, until the time is up or the process is stopped.
 * ConsumeFeaturesProbe orderly &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; &lt;count&gt; &lt;timeoutMs&gt;
 *     two MessageListenerOrderly consumers on an 8-queue topic; count messages over 64 sharding keys,
 *     sent in two halves, the second consumer stopped after the first half and started again; every
 *     fifth message of a key is suspended once (SUSPEND_CURRENT_QUEUE_A_MOMENT). Reports keys whose
 *     messages were seen out of send order, and how many were missing.
 * </pre>
 */
public final class ConsumeFeaturesProbe {
    private static final long[] DEFAULT_LEVEL_MS = {1_000, 5_000, 10_000, 30_000, 60_000, 120_000};

    private ConsumeFeaturesProbe() {
    }

    private static String pid() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
    }

    private static DefaultMQProducer producer(String namesrv, String group) throws MQClientException {
        DefaultMQProducer p = new DefaultMQProducer(group);
        p.setNamesrvAddr(namesrv);
        p.setInstanceName("features-producer-" + pid());
        p.setSendMsgTimeout(10_000);
        p.start();
        return p;
    }

    private static DefaultMQPushConsumer consumer(String namesrv, String group, String name) {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(namesrv);
        c.setInstanceName(name + "-" + pid());
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        return c;
    }

    public static void main(String[] args) {
        int exit;
        try {
            String mode = args.length > 0 ? args[0] : "";
            if ("retry".equals(mode) && args.length == 7) {
                exit = retry(args[1], args[2], args[3], Integer.parseInt(args[4]), args[5], Long.parseLong(args[6]));
            } else if ("delay".equals(mode) && args.length == 6) {
                exit = delay(args[1], args[2], args[3], args[4], Long.parseLong(args[5]));
            } else if ("sql".equals(mode) && args.length == 6) {
                exit = sql(args[1], args[2], args[3], args[4], Long.parseLong(args[5]));
            } else if ("serve".equals(mode) && args.length == 5) {
                exit = serve(args[1], args[2], args[3], Long.parseLong(args[4]));
            } else if ("orderly".equals(mode) && args.length == 6) {
                exit = orderly(args[1], args[2], args[3], Integer.parseInt(args[4]), Long.parseLong(args[5]));
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

    private static int retry(String namesrv, String topic, String group, int maxReconsumeTimes, String how,
        long timeoutMs) throws Exception {
        final List<Map<String, Object>> deliveries = Collections.synchronizedList(new ArrayList<>());
        final long[] first = {0};
        final CountDownLatch done = new CountDownLatch(maxReconsumeTimes + 1);
        DefaultMQProducer p = producer(namesrv, group + "_pg");
        // The topic exists (a warm-up the consumer does not subscribe to) and the consumer pulls both it
        // and its retry topic before the message goes out: the client learns the retry topic's route
        // only on its 30 s route refresh, which would otherwise delay the first retry on any broker.
        p.send(new Message(topic, "warm", "warm-up".getBytes(StandardCharsets.UTF_8)));
        DefaultMQPushConsumer c = consumer(namesrv, group, "retry");
        c.setMaxReconsumeTimes(maxReconsumeTimes);
        c.subscribe(topic, "TagA");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt m : msgs) {
                long now = System.currentTimeMillis();
                synchronized (first) {
                    if (first[0] == 0) {
                        first[0] = now;
                    }
                }
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("reconsumeTimes", m.getReconsumeTimes());
                d.put("atMs", now - first[0]);
                d.put("topic", m.getTopic());
                d.put("body", new String(m.getBody(), StandardCharsets.UTF_8));
                d.put("msgId", m.getMsgId());
                deliveries.add(d);
                done.countDown();
            }
            if ("throw".equals(how)) {
                throw new IllegalStateException("listener fails on purpose");
            }
            if ("null".equals(how)) {
                return null;
            }
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        });
        c.start();
        Map<String, Object> out = new LinkedHashMap<>();
        try {
            long deadline = System.currentTimeMillis() + timeoutMs;
            String retryTopic = "%RETRY%" + group;
            while (!(holds(c, topic) && holds(c, retryTopic))) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("the consumer never held " + topic + " and " + retryTopic);
                }
                Thread.sleep(100);
            }
            SendResult r = p.send(new Message(topic, "TagA", "retry-key", "retry-body".getBytes(StandardCharsets.UTF_8)));
            out.put("msgId", r.getMsgId());
            out.put("offsetMsgId", r.getOffsetMsgId());
            out.put("complete", done.await(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS));
            // A delivery beyond the limit would show here.
            Thread.sleep(2_000);
        } finally {
            p.shutdown();
            c.shutdown();
        }
        out.put("deliveries", new ArrayList<>(deliveries));
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

    private static long levelMs(int level) {
        return DEFAULT_LEVEL_MS[Math.min(level, DEFAULT_LEVEL_MS.length) - 1];
    }

    private static int delay(String namesrv, String topic, String group, String levelsText, long timeoutMs)
        throws Exception {
        String[] parts = levelsText.split(",");
        final Map<String, Object> arrivals = new ConcurrentHashMap<>();
        final CountDownLatch done = new CountDownLatch(parts.length);
        final CountDownLatch warmed = new CountDownLatch(1);
        DefaultMQProducer p = producer(namesrv, group + "_pg");
        // The topic exists before the consumer starts, and the consumer is pulling (it got the warm-up
        // message) before the delays start, so lateness measures the broker, not the client's start.
        p.send(new Message(topic, "warm", "warm-up".getBytes(StandardCharsets.UTF_8)));
        DefaultMQPushConsumer c = consumer(namesrv, group, "delay");
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            long now = System.currentTimeMillis();
            for (MessageExt m : msgs) {
                if (m.getUserProperty("level") == null) {
                    warmed.countDown();
                    continue;
                }
                int level = Integer.parseInt(m.getUserProperty("level"));
                long due = Long.parseLong(m.getUserProperty("sentAt")) + levelMs(level);
                Map<String, Object> a = new LinkedHashMap<>();
                a.put("level", level);
                // The broker stores the delivered message with DELAY still set (ScheduleMessageService).
                a.put("delayTimeLevel", m.getDelayTimeLevel());
                a.put("latenessMs", now - due);
                a.put("topic", m.getTopic());
                a.put("body", new String(m.getBody(), StandardCharsets.UTF_8));
                if (arrivals.putIfAbsent(Integer.toString(level), a) == null) {
                    done.countDown();
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        Map<String, Object> out = new LinkedHashMap<>();
        try {
            if (!warmed.await(timeoutMs, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the consumer never got the warm-up message");
            }
            for (String part : parts) {
                int level = Integer.parseInt(part.trim());
                Message m = new Message(topic, "TagD", ("delayed-" + level).getBytes(StandardCharsets.UTF_8));
                m.setDelayTimeLevel(level);
                m.putUserProperty("level", Integer.toString(level));
                m.putUserProperty("sentAt", Long.toString(System.currentTimeMillis()));
                p.send(m);
            }
            out.put("complete", done.await(timeoutMs, TimeUnit.MILLISECONDS));
        } finally {
            p.shutdown();
            c.shutdown();
        }
        out.put("arrivals", new TreeMap<>(arrivals));
        ProbeOutput.line(out);
        return 0;
    }

    private static int sql(String namesrv, String topic, String group, String expression, long timeoutMs)
        throws Exception {
        final List<Integer> received = Collections.synchronizedList(new ArrayList<>());
        DefaultMQProducer p = producer(namesrv, group + "_pg");
        Map<String, Object> out = new LinkedHashMap<>();
        DefaultMQPushConsumer c = consumer(namesrv, group, "sql");
        try {
            // Creates the topic, so the subscription is checked against a topic that exists.
            p.send(new Message(topic, "warm", "warm-up".getBytes(StandardCharsets.UTF_8)));
            c.subscribe(topic, MessageSelector.bySql(expression));
            c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
                for (MessageExt m : msgs) {
                    String i = m.getUserProperty("i");
                    received.add(i == null ? -1 : Integer.parseInt(i));
                }
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
            try {
                c.start();
            } catch (MQClientException e) {
                out.put("startError", String.valueOf(e.getErrorMessage()));
                out.put("startErrorCode", e.getResponseCode());
                ProbeOutput.line(out);
                return 0;
            }
            for (int i = 0; i < 20; i++) {
                Message m = new Message(topic, "TagS", ("sql-" + i).getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("i", Integer.toString(i));
                m.putUserProperty("a", Integer.toString(i));
                m.putUserProperty("b", i % 3 == 0 ? "x" : "y");
                if (i % 2 == 0) {
                    m.putUserProperty("c", "set");
                }
                p.send(m);
            }
            long deadline = System.currentTimeMillis() + timeoutMs;
            int last = -1;
            long stableSince = System.currentTimeMillis();
            // Done when nothing new arrived for 3 s (the matching set is what the test checks).
            while (System.currentTimeMillis() < deadline) {
                int n = received.size();
                if (n != last) {
                    last = n;
                    stableSince = System.currentTimeMillis();
                } else if (System.currentTimeMillis() - stableSince > 3_000) {
                    break;
                }
                Thread.sleep(100);
            }
        } finally {
            p.shutdown();
            c.shutdown();
        }
        List<Integer> sorted = new ArrayList<>(received);
        Collections.sort(sorted);
        out.put("received", sorted);
        ProbeOutput.line(out);
        return 0;
    }

    private static int serve(String namesrv, String topic, String group, long seconds) throws Exception {
        DefaultMQPushConsumer c = consumer(namesrv, group, "serve");
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt m : msgs) {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("received", new String(m.getBody(), StandardCharsets.UTF_8));
                r.put("reconsumeTimes", m.getReconsumeTimes());
                r.put("queueOffset", Long.toString(m.getQueueOffset()));
                ProbeOutput.line(r);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        Map<String, Object> started = new LinkedHashMap<>();
        started.put("clientId", c.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId());
        ProbeOutput.line(started);
        Runtime.getRuntime().addShutdownHook(new Thread(c::shutdown));
        Thread.sleep(seconds * 1000);
        return 0;
    }

    private static int orderly(String namesrv, String topic, String group, int count, long timeoutMs)
        throws Exception {
        final int keys = 64;
        final Map<Integer, List<Integer>> seen = new ConcurrentHashMap<>();
        final Map<String, Boolean> suspendedOnce = new ConcurrentHashMap<>();
        final AtomicInteger suspensions = new AtomicInteger();
        final CountDownLatch all = new CountDownLatch(count);
        final Map<Integer, Boolean> counted = new ConcurrentHashMap<>();
        MessageListenerOrderly listener = (msgs, context) -> {
            for (MessageExt m : msgs) {
                int key = Integer.parseInt(m.getUserProperty("key"));
                int seq = Integer.parseInt(m.getUserProperty("seq"));
                if (seq % 5 == 4 && suspendedOnce.putIfAbsent(key + "/" + seq, Boolean.TRUE) == null) {
                    suspensions.incrementAndGet();
                    context.setSuspendCurrentQueueTimeMillis(100);
                    return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT;
                }
            }
            for (MessageExt m : msgs) {
                int key = Integer.parseInt(m.getUserProperty("key"));
                int seq = Integer.parseInt(m.getUserProperty("seq"));
                seen.computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>())).add(seq);
                int id = key * 1_000_000 + seq;
                if (counted.putIfAbsent(id, Boolean.TRUE) == null) {
                    all.countDown();
                }
            }
            return ConsumeOrderlyStatus.SUCCESS;
        };
        DefaultMQProducer p = producer(namesrv, group + "_pg");
        p.setDefaultTopicQueueNums(8);
        Map<String, Object> out = new LinkedHashMap<>();
        DefaultMQPushConsumer c0 = consumer(namesrv, group, "orderly-0");
        DefaultMQPushConsumer c1 = consumer(namesrv, group, "orderly-1");
        DefaultMQPushConsumer c1again = null;
        try {
            p.send(new Message(topic, "warm", "warm-up".getBytes(StandardCharsets.UTF_8)));
            out.put("queues", p.fetchPublishMessageQueues(topic).size());
            for (DefaultMQPushConsumer c : new DefaultMQPushConsumer[] {c0, c1}) {
                c.subscribe(topic, "TagO");
                c.registerMessageListener(listener);
                c.start();
            }
            int[] nextSeq = new int[keys];
            int half = count / 2;
            for (int i = 0; i < count; i++) {
                if (i == half) {
                    // The second instance leaves mid-stream and comes back: its queues move and return.
                    c1.shutdown();
                    Thread.sleep(1_000);
                    c1again = consumer(namesrv, group, "orderly-1b");
                    c1again.subscribe(topic, "TagO");
                    c1again.registerMessageListener(listener);
                    c1again.start();
                }
                int key = i % keys;
                int seq = nextSeq[key]++;
                Message m = new Message(topic, "TagO", ("o-" + key + "-" + seq).getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("key", Integer.toString(key));
                m.putUserProperty("seq", Integer.toString(seq));
                p.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), key);
            }
            out.put("complete", all.await(timeoutMs, TimeUnit.MILLISECONDS));
        } finally {
            p.shutdown();
            c0.shutdown();
            if (c1again != null) {
                c1again.shutdown();
            }
        }
        // In order: each key's sequence never goes back except to repeat a prefix after a queue moved.
        List<Integer> outOfOrder = new ArrayList<>();
        int missing = 0;
        int redelivered = 0;
        for (int key = 0; key < keys; key++) {
            List<Integer> s = seen.getOrDefault(key, Collections.emptyList());
            int expected = 0;
            for (int seq : s) {
                if (seq == expected) {
                    expected++;
                } else if (seq < expected) {
                    redelivered++;
                    expected = seq + 1;
                } else {
                    outOfOrder.add(key);
                    break;
                }
            }
            missing += Math.max(0, (count / keys + (key < count % keys ? 1 : 0)) - expected);
        }
        out.put("outOfOrderKeys", outOfOrder);
        out.put("missing", missing);
        out.put("redelivered", redelivered);
        out.put("suspensions", suspensions.get());
        ProbeOutput.line(out);
        return 0;
    }
}
