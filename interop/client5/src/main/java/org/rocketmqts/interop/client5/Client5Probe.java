package org.rocketmqts.interop.client5;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The newest official 5.x remoting client (rocketmq-client 5.5.0) against a name server and broker
 * (ours, in the interop tests). Each mode prints one JSON summary line on stdout and exits 0 when it
 * ran to the end; the test judges the figures. The client logs to ${rocketmq.log.root}/rocketmq_client.log
 * (the test reads it for ERROR lines); the log context is stopped before exit so nothing stays queued.
 *
 * <pre>
 * Client5Probe traffic &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; &lt;count&gt; &lt;timeoutMs&gt;
 *     message i: tag TagA/TagB/TagC by i % 3, keys "k-i", user properties idx and p = "v-i", body "body-i-"
 *     padded to 100..1100 bytes; the first quarter sent sync, the second async, the third oneway, the rest
 *     in batches of 16. Two push consumers of one group (clustering, "TagA || TagB", first offset) must
 *     hold all queues between them before the sends; reports what arrived (missing, duplicated,
 *     unexpected, corrupted), per-consumer counts and the consumer ids the broker lists for the group.
 * Client5Probe orderly &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; &lt;count&gt; &lt;timeoutMs&gt;
 *     two MessageListenerOrderly consumers (queue locks); count messages over 16 keys, each key sent to
 *     queue key % n; reports keys seen out of send order and how many were missing.
 * Client5Probe litepull &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; &lt;count&gt; &lt;timeoutMs&gt;
 *     a DefaultLitePullConsumer (subscribe mode, auto commit) polls count messages; reports the indexes
 *     received and the committed offsets it reads back from the broker.
 * Client5Probe sql     &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; &lt;expression&gt; &lt;timeoutMs&gt;
 *     20 messages with properties a = i, b = (x|y); a push consumer with a SQL92 selector; reports the
 *     indexes received after a quiet period, or the subscription's start error.
 * </pre>
 */
public final class Client5Probe {
    private static final int BATCH = 16;
    private static final long QUIET_MS = 2_000;
    private static final int SHOW = 10;
    private static final PrintStream OUT;

    static {
        try {
            OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Client5Probe() {
    }

    public static void main(String[] args) {
        int exit;
        try {
            exit = dispatch(args);
        } catch (Throwable e) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("error", e.getClass().getName());
            m.put("message", String.valueOf(e.getMessage()));
            line(m);
            e.printStackTrace();
            exit = 2;
        }
        stopClientLog();
        System.exit(exit);
    }

    private static int dispatch(String[] a) throws Exception {
        String mode = a.length > 0 ? a[0] : "";
        if (a.length == 6 && mode.equals("traffic")) {
            return traffic(a[1], a[2], a[3], Integer.parseInt(a[4]), Long.parseLong(a[5]));
        }
        if (a.length == 6 && mode.equals("orderly")) {
            return orderly(a[1], a[2], a[3], Integer.parseInt(a[4]), Long.parseLong(a[5]));
        }
        if (a.length == 6 && mode.equals("litepull")) {
            return litePull(a[1], a[2], a[3], Integer.parseInt(a[4]), Long.parseLong(a[5]));
        }
        if (a.length == 6 && mode.equals("sql")) {
            return sql(a[1], a[2], a[3], a[4], Long.parseLong(a[5]));
        }
        System.err.println("usage: Client5Probe traffic|orderly|litepull <namesrv> <topic> <group> <count> <timeoutMs>");
        System.err.println("       Client5Probe sql <namesrv> <topic> <group> <expression> <timeoutMs>");
        return 64;
    }

    // ------------------------------------------------------------------------------------------
    // output: one compact JSON object per line (the same conventions as interop's ProbeOutput)

    static synchronized void line(Map<String, Object> value) {
        StringBuilder sb = new StringBuilder();
        json(sb, value);
        OUT.println(sb);
        OUT.flush();
    }

    private static void json(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String) {
            sb.append('"');
            String s = (String) v;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '"' || c == '\\') {
                    sb.append('\\').append(c);
                } else if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
                    sb.append(String.format("\\u%04x", (int) c));
                } else {
                    sb.append(c);
                }
            }
            sb.append('"');
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long) {
            sb.append(v);
        } else if (v instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                json(sb, String.valueOf(e.getKey()));
                sb.append(':');
                json(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof Iterable) {
            sb.append('[');
            boolean first = true;
            for (Object o : (Iterable<?>) v) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                json(sb, o);
            }
            sb.append(']');
        } else {
            json(sb, String.valueOf(v));
        }
    }

    /** What the probe writes into the client's log before it shuts the clients down. */
    static final String SHUTDOWN_MARK = "client5-probe: shutting down the clients";

    /**
     * Marks the client log: what the clients log after this is shutdown noise (e.g. a lite pull
     * thread that sends on a channel the shutdown just closed), which the test judges apart.
     */
    private static void markShutdown() {
        org.apache.rocketmq.logging.org.slf4j.LoggerFactory.getLogger(Client5Probe.class).info(SHUTDOWN_MARK);
    }

    /** Flushes the client's asynchronous log appender (its shaded logback) before System.exit. */
    private static void stopClientLog() {
        Object factory = org.apache.rocketmq.logging.org.slf4j.LoggerFactory.getILoggerFactory();
        if (factory instanceof org.apache.rocketmq.logging.ch.qos.logback.classic.LoggerContext) {
            ((org.apache.rocketmq.logging.ch.qos.logback.classic.LoggerContext) factory).stop();
        }
    }

    // ------------------------------------------------------------------------------------------
    // clients

    private static String pid() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
    }

    /** Heartbeats every second (default 30 s), so a short run sends several, V2 included when enabled. */
    private static final int HEARTBEAT_MS = 1_000;

    private static DefaultMQProducer producer(String namesrv, String group) throws MQClientException {
        DefaultMQProducer p = new DefaultMQProducer(group);
        p.setNamesrvAddr(namesrv);
        p.setInstanceName(group + "-" + pid());
        p.setSendMsgTimeout(10_000);
        p.setHeartbeatBrokerInterval(HEARTBEAT_MS);
        p.start();
        return p;
    }

    private static DefaultMQPushConsumer pushConsumer(String namesrv, String group, String name) {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(namesrv);
        c.setInstanceName(name + "-" + pid());
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.setHeartbeatBrokerInterval(HEARTBEAT_MS);
        c.setPersistConsumerOffsetInterval(1_000);
        return c;
    }

    private static int held(DefaultMQPushConsumer c, String topic) {
        int n = 0;
        for (MessageQueue mq : c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().keySet()) {
            if (mq.getTopic().equals(topic)) {
                n++;
            }
        }
        return n;
    }

    private static void awaitBalanced(DefaultMQPushConsumer c0, DefaultMQPushConsumer c1, String topic, int queues,
        long deadline) throws InterruptedException {
        while (!(held(c0, topic) > 0 && held(c1, topic) > 0 && held(c0, topic) + held(c1, topic) == queues)) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("consumers never held all " + queues + " queues: "
                    + held(c0, topic) + "+" + held(c1, topic));
            }
            Thread.sleep(50);
        }
    }

    private static void common(Map<String, Object> out) {
        out.put("clientVersion", MQVersion.getVersionDesc(MQVersion.CURRENT_VERSION));
    }

    // ------------------------------------------------------------------------------------------
    // traffic

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

    private static final class Seen {
        final AtomicInteger[] counts;
        final AtomicInteger[] perConsumer = {new AtomicInteger(), new AtomicInteger()};
        final List<String> problems = Collections.synchronizedList(new ArrayList<>());
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
            int i;
            try {
                i = Integer.parseInt(m.getUserProperty("idx"));
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
            if (m.getBrokerName() == null || m.getBrokerName().isEmpty()) {
                wrong.add("brokerName=" + m.getBrokerName());
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

    private static DefaultMQPushConsumer trafficConsumer(String namesrv, String topic, String group, int n, Seen seen)
        throws MQClientException {
        DefaultMQPushConsumer c = pushConsumer(namesrv, group, "c5-traffic-" + n);
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

    private static boolean sendOk(SendResult r, List<String> problems) {
        boolean ok = r.getSendStatus() == SendStatus.SEND_OK && r.getMsgId() != null && r.getOffsetMsgId() != null
            && r.getMessageQueue() != null && r.getQueueOffset() >= 0;
        if (!ok && problems.size() < SHOW) {
            problems.add("send result " + r);
        }
        return ok;
    }

    private static int traffic(String namesrv, String topic, String group, int count, long timeoutMs) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        int expectedCount = 0;
        for (int i = 0; i < count; i++) {
            if (expected(i)) {
                expectedCount++;
            }
        }
        Seen seen = new Seen(count, expectedCount);
        DefaultMQProducer producer = producer(namesrv, group + "_pg");
        DefaultMQPushConsumer c0 = null;
        DefaultMQPushConsumer c1 = null;
        Map<String, Object> out = new LinkedHashMap<>();
        common(out);
        try {
            // Creates the topic (auto-create from TBW102); TagC, so no consumer takes it.
            SendResult warm = producer.send(new Message(topic, "TagC", "warm-up".getBytes(StandardCharsets.UTF_8)));
            out.put("warmUp", warm.getSendStatus().name());
            int queues = producer.fetchPublishMessageQueues(topic).size();
            out.put("queues", queues);

            c0 = trafficConsumer(namesrv, topic, group, 0, seen);
            c1 = trafficConsumer(namesrv, topic, group, 1, seen);
            awaitBalanced(c0, c1, topic, queues, deadline);
            out.put("held", Arrays.asList(held(c0, topic), held(c1, topic)));
            List<String> ids = c0.getDefaultMQPushConsumerImpl().getmQClientFactory().findConsumerIdList(topic, group);
            out.put("consumerIds", ids == null ? null : ids.size());

            int quarter = count / 4;
            List<String> sendProblems = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger asyncFailures = new AtomicInteger();
            int i = 0;
            int syncFailures = 0;
            for (; i < quarter; i++) {
                if (!sendOk(producer.send(messageOf(topic, i)), sendProblems)) {
                    syncFailures++;
                }
            }
            CountDownLatch asyncDone = new CountDownLatch(quarter);
            for (; i < 2 * quarter; i++) {
                producer.send(messageOf(topic, i), new SendCallback() {
                    @Override
                    public void onSuccess(SendResult r) {
                        if (!sendOk(r, sendProblems)) {
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
                SendResult r = producer.send(batch);
                if (!sendOk(r, sendProblems) || r.getMsgId().split(",").length != batch.size()) {
                    batchFailures++;
                }
            }
            if (!asyncDone.await(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS)) {
                seen.problem("async sends did not all complete");
            }
            Map<String, Object> sendFailures = new LinkedHashMap<>();
            sendFailures.put("sync", syncFailures);
            sendFailures.put("async", asyncFailures.get());
            sendFailures.put("batch", batchFailures);
            out.put("sendFailures", sendFailures);
            out.put("sendProblems", new ArrayList<>(sendProblems));

            boolean complete = seen.all.await(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
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
            out.put("perConsumer", Arrays.asList(seen.perConsumer[0].get(), seen.perConsumer[1].get()));
            out.put("problems", new ArrayList<>(seen.problems));
        } finally {
            markShutdown();
            producer.shutdown();
            if (c0 != null) {
                c0.shutdown();
            }
            if (c1 != null) {
                c1.shutdown();
            }
        }
        line(out);
        return 0;
    }

    // ------------------------------------------------------------------------------------------
    // orderly

    private static int orderly(String namesrv, String topic, String group, int count, long timeoutMs) throws Exception {
        final int keys = 16;
        final Map<Integer, List<Integer>> seenByKey = new ConcurrentHashMap<>();
        final Map<Integer, Boolean> counted = new ConcurrentHashMap<>();
        final CountDownLatch all = new CountDownLatch(count);
        final AtomicInteger locked = new AtomicInteger();
        MessageListenerOrderly listener = (msgs, context) -> {
            for (MessageExt m : msgs) {
                int key = Integer.parseInt(m.getUserProperty("key"));
                int seq = Integer.parseInt(m.getUserProperty("seq"));
                seenByKey.computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>())).add(seq);
                if (counted.putIfAbsent(key * 1_000_000 + seq, Boolean.TRUE) == null) {
                    all.countDown();
                }
            }
            return ConsumeOrderlyStatus.SUCCESS;
        };
        DefaultMQProducer p = producer(namesrv, group + "_pg");
        DefaultMQPushConsumer c0 = pushConsumer(namesrv, group, "c5-orderly-0");
        DefaultMQPushConsumer c1 = pushConsumer(namesrv, group, "c5-orderly-1");
        Map<String, Object> out = new LinkedHashMap<>();
        common(out);
        long deadline = System.currentTimeMillis() + timeoutMs;
        try {
            p.send(new Message(topic, "warm", "warm-up".getBytes(StandardCharsets.UTF_8)));
            int queues = p.fetchPublishMessageQueues(topic).size();
            out.put("queues", queues);
            for (DefaultMQPushConsumer c : new DefaultMQPushConsumer[] {c0, c1}) {
                c.subscribe(topic, "TagO");
                c.registerMessageListener(listener);
                c.start();
            }
            awaitBalanced(c0, c1, topic, queues, deadline);
            // An orderly consumer pulls a queue only once the broker granted its lock (LOCK_BATCH_MQ).
            for (DefaultMQPushConsumer c : new DefaultMQPushConsumer[] {c0, c1}) {
                for (Map.Entry<MessageQueue, org.apache.rocketmq.client.impl.consumer.ProcessQueue> e
                    : c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().entrySet()) {
                    if (e.getKey().getTopic().equals(topic) && e.getValue().isLocked()) {
                        locked.incrementAndGet();
                    }
                }
            }
            int[] nextSeq = new int[keys];
            for (int i = 0; i < count; i++) {
                int key = i % keys;
                int seq = nextSeq[key]++;
                Message m = new Message(topic, "TagO", ("o-" + key + "-" + seq).getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("key", Integer.toString(key));
                m.putUserProperty("seq", Integer.toString(seq));
                p.send(m, (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size()), key);
            }
            out.put("complete", all.await(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS));
        } finally {
            markShutdown();
            p.shutdown();
            c0.shutdown();
            c1.shutdown();
        }
        List<Integer> outOfOrder = new ArrayList<>();
        for (Map.Entry<Integer, List<Integer>> e : new TreeMap<>(seenByKey).entrySet()) {
            List<Integer> seqs = new ArrayList<>(e.getValue());
            for (int j = 1; j < seqs.size(); j++) {
                if (seqs.get(j) < seqs.get(j - 1)) {
                    outOfOrder.add(e.getKey());
                    break;
                }
            }
        }
        out.put("lockedAtStart", locked.get());
        out.put("outOfOrderKeys", outOfOrder);
        out.put("missing", (int) all.getCount());
        line(out);
        return 0;
    }

    // ------------------------------------------------------------------------------------------
    // lite pull

    private static int litePull(String namesrv, String topic, String group, int count, long timeoutMs)
        throws Exception {
        DefaultMQProducer p = producer(namesrv, group + "_pg");
        DefaultLitePullConsumer c = new DefaultLitePullConsumer(group);
        c.setNamesrvAddr(namesrv);
        c.setInstanceName("c5-lite-" + pid());
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.setHeartbeatBrokerInterval(HEARTBEAT_MS);
        c.setAutoCommitIntervalMillis(1_000);
        c.setPollTimeoutMillis(1_000);
        Map<String, Object> out = new LinkedHashMap<>();
        common(out);
        long deadline = System.currentTimeMillis() + timeoutMs;
        Map<Integer, Integer> got = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        try {
            // The topic must exist before the consumer's first rebalance.
            p.send(new Message(topic, "warm", "warm-up".getBytes(StandardCharsets.UTF_8)));
            c.subscribe(topic, "TagL");
            c.start();
            for (int i = 0; i < count; i++) {
                Message m = new Message(topic, "TagL", "l-" + i, ("lite-" + i).getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("i", Integer.toString(i));
                p.send(m);
            }
            while (got.size() < count && System.currentTimeMillis() < deadline) {
                for (MessageExt m : c.poll()) {
                    String i = m.getUserProperty("i");
                    int n = i == null ? -1 : Integer.parseInt(i);
                    got.merge(n, 1, Integer::sum);
                    if (!("lite-" + i).equals(new String(m.getBody(), StandardCharsets.UTF_8)) && problems.size() < SHOW) {
                        problems.add("body of " + i);
                    }
                }
            }
            c.commitSync();
            Set<MessageQueue> mqs = new TreeSet<>(c.fetchMessageQueues(topic));
            long committed = 0;
            for (MessageQueue mq : mqs) {
                committed += Math.max(0, c.committed(mq));
            }
            out.put("queues", mqs.size());
            out.put("committed", committed);
        } finally {
            markShutdown();
            p.shutdown();
            c.shutdown();
        }
        int duplicated = 0;
        for (int n : got.values()) {
            if (n > 1) {
                duplicated++;
            }
        }
        out.put("received", got.size());
        out.put("duplicated", duplicated);
        out.put("problems", problems);
        line(out);
        return 0;
    }

    // ------------------------------------------------------------------------------------------
    // SQL92

    private static int sql(String namesrv, String topic, String group, String expression, long timeoutMs)
        throws Exception {
        final List<Integer> received = Collections.synchronizedList(new ArrayList<>());
        DefaultMQProducer p = producer(namesrv, group + "_pg");
        Map<String, Object> out = new LinkedHashMap<>();
        common(out);
        DefaultMQPushConsumer c = pushConsumer(namesrv, group, "c5-sql");
        try {
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
                line(out);
                return 0;
            }
            for (int i = 0; i < 20; i++) {
                Message m = new Message(topic, "TagS", ("sql-" + i).getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("i", Integer.toString(i));
                m.putUserProperty("a", Integer.toString(i));
                m.putUserProperty("b", i % 3 == 0 ? "x" : "y");
                p.send(m);
            }
            long deadline = System.currentTimeMillis() + timeoutMs;
            int last = -1;
            long stableSince = System.currentTimeMillis();
            // Done when nothing new arrived for a quiet period (the matching set is what the test checks).
            while (System.currentTimeMillis() < deadline) {
                int n = received.size();
                if (n != last) {
                    last = n;
                    stableSince = System.currentTimeMillis();
                } else if (n > 0 && System.currentTimeMillis() - stableSince > QUIET_MS) {
                    break;
                }
                Thread.sleep(100);
            }
        } finally {
            markShutdown();
            p.shutdown();
            c.shutdown();
        }
        List<Integer> sorted = new ArrayList<>(received);
        Collections.sort(sorted);
        out.put("received", sorted);
        line(out);
        return 0;
    }
}
