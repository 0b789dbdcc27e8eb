package org.rocketmqts.interop.client5;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Timer messages (5.x) with the official 5.5.0 client: a producer sets each message's delivery time
 * with Message.setDeliverTimeMs (even indexes) or Message.setDelayTimeSec (odd ones), a push consumer
 * receives them, and the probe measures how late each arrived against the time it asked for.
 *
 * <pre>
 * TimerProbe run &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; &lt;count&gt; &lt;leadMs&gt; &lt;spreadMs&gt; &lt;timeoutMs&gt; [--lines] [--precision-ms=N]
 *     message i is due at start + leadMs + i * spreadMs / count (+ a fraction of a second, so due
 *     times fall anywhere within a second); setDelayTimeSec rounds up to whole seconds from the send.
 *     Sends async with at most 1024 in flight, in due order. With --lines one {"msg":...} line per
 *     delivery (receivedAt, due, index, msgId, the properties the consumer sees). Then one
 *     {"summary":...} line: sent, send failures, how many were already due when their send returned
 *     (pastAtSend), received, duplicates, missing, early (received before due), lateness p50/p99/max
 *     (ms after due) and slot lateness (ms after TIMER_OUT_MS + the broker's timerPrecisionMs, --precision-ms, 1000 by default: the
 *     broker's own delay), dequeue lateness (TIMER_DEQUEUE_MS - due, setDeliverTimeMs messages) and
 *     consumer lag (receive - TIMER_DEQUEUE_MS).
 * </pre>
 */
public final class TimerProbe {
    private static final int IN_FLIGHT = 1024;

    private TimerProbe() {
    }

    public static void main(String[] args) {
        int exit;
        try {
            exit = dispatch(args);
        } catch (Throwable e) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("error", e.getClass().getName());
            m.put("message", String.valueOf(e.getMessage()));
            Client5Probe.line(m);
            e.printStackTrace();
            exit = 2;
        }
        Object factory = org.apache.rocketmq.logging.org.slf4j.LoggerFactory.getILoggerFactory();
        if (factory instanceof org.apache.rocketmq.logging.ch.qos.logback.classic.LoggerContext) {
            ((org.apache.rocketmq.logging.ch.qos.logback.classic.LoggerContext) factory).stop();
        }
        System.exit(exit);
    }

    private static int dispatch(String[] a) throws Exception {
        if (a.length >= 8 && a[0].equals("run")) {
            boolean lines = Arrays.asList(a).contains("--lines");
            long precisionMs = 1000;
            for (String opt : a) {
                if (opt.startsWith("--precision-ms=")) {
                    precisionMs = Long.parseLong(opt.substring("--precision-ms=".length()));
                }
            }
            return run(a[1], a[2], a[3], Integer.parseInt(a[4]), Long.parseLong(a[5]), Long.parseLong(a[6]),
                Long.parseLong(a[7]), lines, precisionMs);
        }
        System.err.println("usage: TimerProbe run <namesrv> <topic> <group> <count> <leadMs> <spreadMs> <timeoutMs> [--lines] [--precision-ms=N]");
        return 64;
    }

    private static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return -1;
        }
        int i = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    private static int run(String namesrv, String topic, String group, int count, long leadMs, long spreadMs,
        long timeoutMs, boolean lines, long precisionMs) throws Exception {
        final long[] due = new long[count];
        final long[] lateness = new long[count];
        final long[] slotLateness = new long[count];
        // The broker's own part (TIMER_DEQUEUE_MS - due) and the consumer's (receive - TIMER_DEQUEUE_MS).
        final long[] dequeueLateness = new long[count];
        final long[] consumerLag = new long[count];
        final AtomicInteger[] seen = new AtomicInteger[count];
        for (int i = 0; i < count; i++) {
            seen[i] = new AtomicInteger();
        }
        final AtomicInteger received = new AtomicInteger();
        final AtomicInteger duplicates = new AtomicInteger();
        final AtomicInteger early = new AtomicInteger();
        final CountDownLatch all = new CountDownLatch(count);

        DefaultMQProducer producer = new DefaultMQProducer(group + "_producer");
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName("timer-probe-" + java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0]);
        producer.setSendMsgTimeout(10_000);
        producer.start();
        // The topic is created by its first message (a plain one); the consumer starts after it.
        producer.send(new Message(topic, "warm-up", "warm-up".getBytes(StandardCharsets.UTF_8)));

        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName("timer-probe-" + java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0]);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.setPollNameServerInterval(1_000);
        consumer.setConsumeThreadMin(16);
        consumer.setConsumeThreadMax(16);
        consumer.setConsumeMessageBatchMaxSize(32);
        consumer.setPullBatchSize(32);
        consumer.subscribe(topic, "timer");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            long now = System.currentTimeMillis();
            for (MessageExt m : msgs) {
                String idx = m.getUserProperty("idx");
                if (idx == null) {
                    continue;
                }
                int i = Integer.parseInt(idx);
                if (seen[i].incrementAndGet() > 1) {
                    duplicates.incrementAndGet();
                    continue;
                }
                long dueAt = Long.parseLong(m.getUserProperty("due"));
                lateness[i] = now - dueAt;
                String out = m.getProperty("TIMER_OUT_MS");
                slotLateness[i] = out == null ? Long.MIN_VALUE : now - (Long.parseLong(out) + precisionMs);
                String deq = m.getProperty("TIMER_DEQUEUE_MS");
                dequeueLateness[i] = deq == null ? Long.MIN_VALUE : Long.parseLong(deq) - dueAt;
                consumerLag[i] = deq == null ? Long.MIN_VALUE : now - Long.parseLong(deq);
                if (now < dueAt) {
                    early.incrementAndGet();
                }
                received.incrementAndGet();
                if (lines) {
                    Map<String, Object> msg = new LinkedHashMap<>();
                    msg.put("index", i);
                    msg.put("receivedAt", now);
                    msg.put("due", dueAt);
                    msg.put("msgId", m.getMsgId());
                    msg.put("topic", m.getTopic());
                    msg.put("queueId", m.getQueueId());
                    msg.put("reconsumeTimes", m.getReconsumeTimes());
                    msg.put("properties", new TreeMap<>(m.getProperties()));
                    Map<String, Object> wrap = new LinkedHashMap<>();
                    wrap.put("msg", msg);
                    Client5Probe.line(wrap);
                }
                all.countDown();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();

        long start = System.currentTimeMillis();
        final Semaphore window = new Semaphore(IN_FLIGHT);
        final AtomicInteger sendFailures = new AtomicInteger();
        final AtomicInteger pastAtSend = new AtomicInteger();
        final AtomicLong lastSendDone = new AtomicLong();
        final Map<String, Integer> failureKinds = new ConcurrentHashMap<>();
        for (int i = 0; i < count; i++) {
            // Spread within the second too: i * 7919 % 1000 walks every millisecond of it.
            long at = start + leadMs + (count == 0 ? 0 : i * spreadMs / count) + (i * 7919L % 1000);
            Message msg = new Message(topic, "timer", ("timer-" + i).getBytes(StandardCharsets.UTF_8));
            msg.putUserProperty("idx", String.valueOf(i));
            if (i % 2 == 0) {
                msg.setDeliverTimeMs(at);
            } else {
                long sec = Math.max(1, (at - System.currentTimeMillis() + 999) / 1000);
                at = System.currentTimeMillis() + sec * 1000;
                msg.setDelayTimeSec(sec);
            }
            due[i] = at;
            msg.putUserProperty("due", String.valueOf(at));
            window.acquire();
            final long dueAt = at;
            producer.send(msg, new SendCallback() {
                @Override
                public void onSuccess(SendResult r) {
                    long now = System.currentTimeMillis();
                    if (now >= dueAt) {
                        pastAtSend.incrementAndGet();
                    }
                    lastSendDone.accumulateAndGet(now, Math::max);
                    window.release();
                }

                @Override
                public void onException(Throwable e) {
                    sendFailures.incrementAndGet();
                    failureKinds.merge(e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).split("\n")[0], 1, Integer::sum);
                    window.release();
                }
            }, 10_000);
        }
        window.acquire(IN_FLIGHT);
        long sentMs = System.currentTimeMillis() - start;
        all.await(Math.max(0, start + timeoutMs - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
        // Late duplicates: a moment for any second delivery to show.
        Thread.sleep(lines ? 1_000 : 2_000);

        int got = received.get();
        long[] late = new long[got];
        long[] slot = new long[got];
        int k = 0;
        int s = 0;
        for (int i = 0; i < count && k < got; i++) {
            if (seen[i].get() > 0) {
                late[k++] = lateness[i];
                if (slotLateness[i] != Long.MIN_VALUE) {
                    slot[s++] = slotLateness[i];
                }
            }
        }
        late = Arrays.copyOf(late, k);
        // setDeliverTimeMs messages only (even indexes): their due time is exact; a setDelayTimeSec
        // one's is counted from the broker's receive, so the send's own latency shows in its lateness.
        long[] lateAbs = new long[got];
        long[] deqLate = new long[got];
        long[] lag = new long[got];
        int a = 0;
        int d = 0;
        for (int i = 0; i < count; i++) {
            if (seen[i].get() == 0) {
                continue;
            }
            if (i % 2 == 0) {
                lateAbs[a++] = lateness[i];
            }
            if (dequeueLateness[i] != Long.MIN_VALUE) {
                deqLate[d] = i % 2 == 0 ? dequeueLateness[i] : Long.MIN_VALUE;
                lag[d++] = consumerLag[i];
            }
        }
        lateAbs = Arrays.copyOf(lateAbs, a);
        long[] deqAbs = Arrays.stream(Arrays.copyOf(deqLate, d)).filter(x -> x != Long.MIN_VALUE).sorted().toArray();
        lag = Arrays.copyOf(lag, d);
        Arrays.sort(lateAbs);
        Arrays.sort(lag);
        slot = Arrays.copyOf(slot, s);
        Arrays.sort(late);
        Arrays.sort(slot);
        Map<String, Object> sum = new LinkedHashMap<>();
        sum.put("sent", count - sendFailures.get());
        sum.put("sendFailures", sendFailures.get());
        sum.put("failureKinds", new TreeMap<>(failureKinds));
        sum.put("sendMs", sentMs);
        sum.put("pastAtSend", pastAtSend.get());
        sum.put("received", got);
        sum.put("duplicates", duplicates.get());
        sum.put("missing", count - got);
        sum.put("early", early.get());
        sum.put("latenessP50", percentile(late, 0.50));
        sum.put("latenessP99", percentile(late, 0.99));
        sum.put("latenessMax", percentile(late, 1.0));
        sum.put("latenessMin", late.length == 0 ? -1 : late[0]);
        sum.put("slotLatenessP50", percentile(slot, 0.50));
        sum.put("slotLatenessP99", percentile(slot, 0.99));
        sum.put("slotLatenessMax", percentile(slot, 1.0));
        sum.put("deliverMsLatenessP50", percentile(lateAbs, 0.50));
        sum.put("deliverMsLatenessP99", percentile(lateAbs, 0.99));
        sum.put("deliverMsLatenessMax", percentile(lateAbs, 1.0));
        sum.put("dequeueLatenessP50", percentile(deqAbs, 0.50));
        sum.put("dequeueLatenessP99", percentile(deqAbs, 0.99));
        sum.put("dequeueLatenessMax", percentile(deqAbs, 1.0));
        sum.put("consumerLagP50", percentile(lag, 0.50));
        sum.put("consumerLagP99", percentile(lag, 0.99));
        sum.put("consumerLagMax", percentile(lag, 1.0));
        Map<String, Object> wrap = new LinkedHashMap<>();
        wrap.put("summary", sum);
        Client5Probe.line(wrap);
        consumer.shutdown();
        producer.shutdown();
        return 0;
    }
}
