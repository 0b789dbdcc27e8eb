package org.rocketmqts.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The official 4.9.8 consumers under the loads scripts/bench-consumer.ts puts on ours, so that bench
 * can print ours / official per case. Every consumer is made with the client's defaults except the
 * group (fresh per case, given) and CONSUME_FROM_FIRST_OFFSET where a backlog is read.
 *
 * <pre>
 * ConsumerBench &lt;namesrvAddr&gt;
 *   stdin, one case per line:
 *     push &lt;topic&gt; &lt;group&gt; &lt;messages&gt; &lt;stallMs&gt; &lt;deadlineMs&gt;
 *     push-window &lt;topic&gt; &lt;group&gt; &lt;messages&gt; &lt;warmupMs&gt; &lt;windowMs&gt; &lt;stallMs&gt;
 *     lite &lt;topic&gt; &lt;group&gt; &lt;messages&gt; &lt;stallMs&gt; &lt;deadlineMs&gt;
 *     move &lt;topic&gt; &lt;group&gt; concurrently|orderly &lt;settleMs&gt; &lt;deadlineMs&gt; &lt;workMs&gt;
 *     memory-start &lt;topic&gt; &lt;group&gt;  then  memory-measure  then  memory-stop
 * </pre>
 *
 * Prints {"ready":true} first, then one JSON line per command ({"error":..} when it failed; the next
 * command still runs); exits at end of input. Durations are in ns or, for move, in microseconds (-1: never).
 * <ul>
 * <li>push: a DefaultMQPushConsumer with an empty concurrent listener (CONSUME_SUCCESS) reads the
 * topic's backlog; the run ends when `messages` deliveries were counted. elapsedNs is from just before
 * start() to the delivery that reached the count; cpuNs is the JVM's CPU time (every thread) over the
 * same span.</li>
 * <li>push-window: the push case measured in a steady state (scripts/bench-pull.ts): once the first
 * message arrived and warmupMs more have passed, prints {"window":"start"} (the bench samples the
 * broker then) and counts the deliveries of the next windowMs, or until `messages` were delivered in
 * all (failure "drained": the backlog was too small for the window). consumed, elapsedNs and cpuNs are
 * those of the window; before is what was delivered ahead of it.</li>
 * <li>lite: a DefaultLitePullConsumer (subscribe "*", auto-commit) polled with poll() in a loop until
 * `messages` were returned; elapsedNs and cpuNs as for push.</li>
 * <li>Both stop early, with complete false and a reason, when nothing was consumed for stallMs or
 * deadlineMs has passed.</li>
 * <li>move: a group of two push consumers (A, B) on a topic someone else keeps sending to. A starts
 * alone and reads every queue; then B joins: join latency of each queue B is allocated (the official
 * AllocateMessageQueueAveragely over both client ids) is the time from just before B.start() to B's
 * first delivery from it. After settleMs, B leaves: leave latency of each of B's queues is the time
 * from B.shutdown() returning to A's first delivery from it. Listeners take workMs per call (a sleep,
 * as a listener waiting on I/O would; 0: empty) and answer CONSUME_SUCCESS / SUCCESS.</li>
 * <li>memory-start: after a full GC, the heap in use and this JVM's RSS, then a DefaultMQPushConsumer
 * whose listener blocks until memory-stop, so its process queues fill to the flow-control thresholds;
 * prints the client id (the bench reads the cached counts through GET_CONSUMER_RUNNING_INFO).
 * memory-measure: heap and RSS after a full GC. memory-stop: shuts it down and releases the
 * listeners.</li>
 * </ul>
 */
public final class ConsumerBench {
    /** How often a waiting case looks at its progress; every figure is stamped where it happens. */
    private static final long POLL_MS = 5;

    private final String namesrvAddr;
    private DefaultMQPushConsumer memoryConsumer;
    private CountDownLatch memoryRelease;

    private ConsumerBench(String namesrvAddr) {
        this.namesrvAddr = namesrvAddr;
    }

    public static void main(String[] args) {
        int exit = 0;
        try {
            if (args.length != 1) {
                System.err.println("usage: ConsumerBench <namesrvAddr> (cases on stdin)");
                exit = 64;
            } else {
                new ConsumerBench(args[0]).serve();
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

    private void serve() throws Exception {
        Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("ready", true);
        ProbeOutput.line(ready);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] p = line.trim().split("\\s+");
                if (p.length == 1 && p[0].isEmpty()) {
                    continue;
                }
                try {
                    ProbeOutput.line(command(p));
                } catch (Exception e) {
                    // One case failing leaves the JVM for the next; the bench prints the error line.
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("error", e.getClass().getName());
                    m.put("message", String.valueOf(e.getMessage()));
                    ProbeOutput.line(m);
                }
            }
        } finally {
            if (memoryConsumer != null) {
                memoryStop();
            }
        }
    }

    private Map<String, Object> command(String[] p) throws Exception {
        switch (p[0]) {
            case "push":
                expect(p, 6);
                return push(p[1], p[2], Long.parseLong(p[3]), Long.parseLong(p[4]), Long.parseLong(p[5]));
            case "push-window":
                expect(p, 7);
                return pushWindow(p[1], p[2], Long.parseLong(p[3]), Long.parseLong(p[4]), Long.parseLong(p[5]),
                    Long.parseLong(p[6]));
            case "lite":
                expect(p, 6);
                return lite(p[1], p[2], Long.parseLong(p[3]), Long.parseLong(p[4]), Long.parseLong(p[5]));
            case "move":
                expect(p, 7);
                return move(p[1], p[2], p[3], Long.parseLong(p[4]), Long.parseLong(p[5]), Long.parseLong(p[6]));
            case "memory-start":
                expect(p, 3);
                return memoryStart(p[1], p[2]);
            case "memory-measure":
                expect(p, 1);
                return memoryFigures();
            case "memory-stop":
                expect(p, 1);
                return memoryStop();
            default:
                throw new IllegalArgumentException("unknown case: " + String.join(" ", p));
        }
    }

    private static void expect(String[] p, int n) {
        if (p.length != n) {
            throw new IllegalArgumentException("bad case line: " + String.join(" ", p));
        }
    }

    /** CPU time of the whole JVM (consumer threads, Netty, JIT, GC), or -1 if unknown. */
    static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }

    /**
     * Waits until `done` says so; "stalled" when `progress` did not move for stallMs, "deadline" when
     * deadlineMs passed, null when done.
     */
    private static String await(BooleanSupplier done, LongSupplier progress, long stallMs, long deadlineMs)
        throws InterruptedException {
        long start = System.nanoTime();
        long last = progress.getAsLong();
        long lastChange = start;
        while (!done.getAsBoolean()) {
            Thread.sleep(POLL_MS);
            long now = System.nanoTime();
            long p = progress.getAsLong();
            if (p != last) {
                last = p;
                lastChange = now;
            } else if (now - lastChange > TimeUnit.MILLISECONDS.toNanos(stallMs)) {
                return "stalled";
            }
            if (now - start > TimeUnit.MILLISECONDS.toNanos(deadlineMs)) {
                return "deadline";
            }
        }
        return null;
    }

    private static Map<String, Object> figures(String name, long consumed, long elapsedNs, long cpuNs,
        String failure) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("case", name);
        m.put("consumed", consumed);
        m.put("elapsedNs", elapsedNs);
        m.put("cpuNs", cpuNs);
        m.put("complete", failure == null);
        m.put("failure", failure);
        return m;
    }

    private Map<String, Object> push(String topic, String group, long messages, long stallMs, long deadlineMs)
        throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(namesrvAddr);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        AtomicLong consumed = new AtomicLong();
        AtomicLong doneAt = new AtomicLong();
        CountDownLatch done = new CountDownLatch(1);
        c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            if (consumed.addAndGet(msgs.size()) >= messages && doneAt.compareAndSet(0, System.nanoTime())) {
                done.countDown();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        long cpuBefore = processCpuNanos();
        long started = System.nanoTime();
        String failure;
        long cpuAfter;
        try {
            c.start();
            failure = await(() -> done.getCount() == 0, consumed::get, stallMs, deadlineMs);
            cpuAfter = processCpuNanos();
        } finally {
            c.shutdown();
        }
        long end = failure == null ? doneAt.get() : System.nanoTime();
        return figures("push", consumed.get(), end - started, cpuBefore < 0 ? -1 : cpuAfter - cpuBefore, failure);
    }

    private Map<String, Object> pushWindow(String topic, String group, long messages, long warmupMs, long windowMs,
        long stallMs) throws Exception {
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(namesrvAddr);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        AtomicLong consumed = new AtomicLong();
        AtomicLong drainedAt = new AtomicLong();
        c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            if (consumed.addAndGet(msgs.size()) >= messages) {
                drainedAt.compareAndSet(0, System.nanoTime());
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        String failure;
        long before;
        long inWindow;
        long elapsed;
        long cpu;
        try {
            c.start();
            failure = await(() -> consumed.get() > 0, consumed::get, stallMs, stallMs);
            if (failure == null) {
                Thread.sleep(warmupMs);
            }
            Map<String, Object> start = new LinkedHashMap<>();
            start.put("window", "start");
            ProbeOutput.line(start);
            long cpuBefore = processCpuNanos();
            long started = System.nanoTime();
            before = consumed.get();
            if (failure == null) {
                long end = started + TimeUnit.MILLISECONDS.toNanos(windowMs);
                failure = await(() -> System.nanoTime() >= end || drainedAt.get() != 0, consumed::get, stallMs,
                    windowMs + stallMs);
            }
            long stopped = drainedAt.get() != 0 ? drainedAt.get() : System.nanoTime();
            if (failure == null && drainedAt.get() != 0) {
                failure = "drained";
            }
            inWindow = consumed.get() - before;
            elapsed = Math.max(0, stopped - started);
            long cpuAfter = processCpuNanos();
            cpu = cpuBefore < 0 ? -1 : cpuAfter - cpuBefore;
        } finally {
            c.shutdown();
        }
        Map<String, Object> m = figures("push-window", inWindow, elapsed, cpu, failure);
        m.put("before", before);
        return m;
    }

    private Map<String, Object> lite(String topic, String group, long messages, long stallMs, long deadlineMs)
        throws Exception {
        DefaultLitePullConsumer c = new DefaultLitePullConsumer(group);
        c.setNamesrvAddr(namesrvAddr);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        long consumed = 0;
        String failure = null;
        long cpuBefore = processCpuNanos();
        long started = System.nanoTime();
        long end;
        long cpuAfter;
        try {
            c.start();
            long lastChange = System.nanoTime();
            while (consumed < messages) {
                List<MessageExt> batch = c.poll();
                long now = System.nanoTime();
                if (!batch.isEmpty()) {
                    consumed += batch.size();
                    lastChange = now;
                } else if (now - lastChange > TimeUnit.MILLISECONDS.toNanos(stallMs)) {
                    failure = "stalled";
                    break;
                }
                if (now - started > TimeUnit.MILLISECONDS.toNanos(deadlineMs)) {
                    failure = "deadline";
                    break;
                }
            }
            end = System.nanoTime();
            cpuAfter = processCpuNanos();
        } finally {
            c.shutdown();
        }
        return figures("lite", consumed, end - started, cpuBefore < 0 ? -1 : cpuAfter - cpuBefore, failure);
    }

    /** One member of the move case: when it first delivered from each queue since it was armed. */
    private static final class Member {
        final DefaultMQPushConsumer consumer;
        final Map<Integer, Long> firstSince = new ConcurrentHashMap<>();
        volatile long since;

        Member(String namesrvAddr, String topic, String group, boolean orderly, long workMs) throws Exception {
            consumer = new DefaultMQPushConsumer(group);
            consumer.setNamesrvAddr(namesrvAddr);
            consumer.subscribe(topic, "*");
            if (orderly) {
                consumer.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
                    seen(msgs);
                    work(workMs);
                    return ConsumeOrderlyStatus.SUCCESS;
                });
            } else {
                consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
                    seen(msgs);
                    work(workMs);
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                });
            }
        }

        private static void work(long workMs) {
            if (workMs <= 0) {
                return;
            }
            try {
                Thread.sleep(workMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private void seen(List<MessageExt> msgs) {
            long now = System.nanoTime();
            if (now < since) {
                return;
            }
            for (MessageExt m : msgs) {
                firstSince.putIfAbsent(m.getQueueId(), now);
            }
        }

        void arm(long at) {
            firstSince.clear();
            since = at;
        }

        boolean deliveredFromAll(List<Integer> queueIds) {
            return firstSince.keySet().containsAll(queueIds);
        }

        /** Microseconds from the arming time to the first delivery of each queue (-1: none). */
        List<Long> latenciesUs(List<Integer> queueIds) {
            List<Long> out = new ArrayList<>();
            for (int q : queueIds) {
                Long t = firstSince.get(q);
                out.add(t == null ? -1L : TimeUnit.NANOSECONDS.toMicros(t - since));
            }
            return out;
        }
    }

    private Map<String, Object> move(String topic, String group, String listener, long settleMs, long deadlineMs,
        long workMs) throws Exception {
        boolean orderly;
        if (listener.equals("orderly")) {
            orderly = true;
        } else if (listener.equals("concurrently")) {
            orderly = false;
        } else {
            throw new IllegalArgumentException("move: concurrently or orderly, not " + listener);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("case", "move");
        m.put("listener", listener);
        Member a = new Member(namesrvAddr, topic, group, orderly, workMs);
        Member b = null;
        boolean bRunning = false;
        try {
            a.arm(System.nanoTime());
            a.consumer.start();
            List<MessageQueue> mqAll = new ArrayList<>(a.consumer.fetchSubscribeMessageQueues(topic));
            Collections.sort(mqAll);
            List<Integer> all = new ArrayList<>();
            for (MessageQueue mq : mqAll) {
                all.add(mq.getQueueId());
            }
            final Member alone = a;
            if (await(() -> alone.deliveredFromAll(all), () -> alone.firstSince.size(), deadlineMs, deadlineMs)
                != null) {
                throw new IllegalStateException("member A alone delivered from queues " + a.firstSince.keySet()
                    + " of " + all + " within " + deadlineMs + " ms");
            }

            b = new Member(namesrvAddr, topic, group, orderly, workMs);
            b.arm(System.nanoTime());
            b.consumer.start();
            bRunning = true;
            List<String> cids = new ArrayList<>(Arrays.asList(a.consumer.buildMQClientId(),
                b.consumer.buildMQClientId()));
            Collections.sort(cids);
            List<Integer> moved = new ArrayList<>();
            for (MessageQueue mq : new AllocateMessageQueueAveragely().allocate(group, b.consumer.buildMQClientId(),
                mqAll, cids)) {
                moved.add(mq.getQueueId());
            }
            m.put("moved", moved);
            final Member joined = b;
            String joinFailure = await(() -> joined.deliveredFromAll(moved), () -> joined.firstSince.size(),
                deadlineMs, deadlineMs);
            m.put("joinUs", b.latenciesUs(moved));
            m.put("joinFailure", joinFailure);
            if (joinFailure != null) {
                return m;
            }

            Thread.sleep(settleMs);
            long shutdownStarted = System.nanoTime();
            b.consumer.shutdown();
            bRunning = false;
            long left = System.nanoTime();
            m.put("shutdownUs", TimeUnit.NANOSECONDS.toMicros(left - shutdownStarted));
            a.arm(left);
            final Member survivor = a;
            String leaveFailure = await(() -> survivor.deliveredFromAll(moved), () -> survivor.firstSince.size(),
                deadlineMs, deadlineMs);
            m.put("leaveUs", a.latenciesUs(moved));
            m.put("leaveFailure", leaveFailure);
            return m;
        } finally {
            if (bRunning) {
                b.consumer.shutdown();
            }
            a.consumer.shutdown();
        }
    }

    private static long rssBytes() {
        try {
            for (String line : Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // not Linux: unknown
        }
        return -1;
    }

    private static Map<String, Object> memoryFigures() throws InterruptedException {
        // Two collections, so that what the first finalised is gone too.
        System.gc();
        Thread.sleep(100);
        System.gc();
        Runtime rt = Runtime.getRuntime();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("heapBytes", rt.totalMemory() - rt.freeMemory());
        m.put("rssBytes", rssBytes());
        return m;
    }

    private Map<String, Object> memoryStart(String topic, String group) throws Exception {
        if (memoryConsumer != null) {
            throw new IllegalStateException("memory-start twice");
        }
        Map<String, Object> before = memoryFigures();
        CountDownLatch release = new CountDownLatch(1);
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
        c.setNamesrvAddr(namesrvAddr);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        memoryConsumer = c;
        memoryRelease = release;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("clientId", c.buildMQClientId());
        m.putAll(before);
        return m;
    }

    private Map<String, Object> memoryStop() {
        if (memoryConsumer != null) {
            memoryConsumer.shutdown();
            memoryRelease.countDown();
            memoryConsumer = null;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("stopped", true);
        return m;
    }
}
