package org.rocketmqts.interop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.exception.RemotingException;

/**
 * The Java side of `rmq bench producer`: the official 4.9.8 DefaultMQProducer driven with the flags of
 * the official benchmark Producer / BatchProducer plus ours, as `rmq bench producer` (issue 13),
 * printing the same lines, so that one load can be put on a broker from Java and from Node.
 *
 * <p>Sending: by default min(`-w`, `--in-flight`) threads, each doing synchronous sends one after the
 * other, as the official tool does; with `-y true` one thread issuing asynchronous sends, at most
 * `--in-flight` [10000, the official tool's queue limit] outstanding. `-b 1` sends single messages, `-b N` a Collection of N (a batch). A send
 * counts in the summary when it started after the warm-up; the measured time runs from the end of
 * the warm-up to the completion of the last send, so every counted send is inside it.
 *
 * <p>Send Failed counts sends that failed in the client or on the wire; Response Failed sends the
 * broker refused or answered with a status other than SEND_OK (the message may still be stored, e.g.
 * FLUSH_DISK_TIMEOUT). Send TPS and `tps` are messages per second; `sendTps` send calls per second.
 */
public final class LoadProducer {
    static final String USAGE = String.join("\n",
        "usage: LoadProducer [flags]  (official benchmark Producer flags, plus ours)",
        "  -n namesrvAddr        [NAMESRV_ADDR, else 127.0.0.1:9876]",
        "  -t topic              [BenchmarkTest]",
        "  -w threadCount        [64]",
        "  -s messageSize        [128]",
        "  -k keyEnable          [false]",
        "  -l tagCount           [0]",
        "  -q messageQuantity    [0: until stopped]",
        "  -d delayEnable        [false]",
        "  -e delayLevel         [1]",
        "  -b batchSize          [1: single sends; N > 1: batches of N]",
        "  -p propertySize       [0]",
        "  -y asyncEnable        [false]",
        "  -a aclEnable          [false; true is not supported yet]",
        "  --duration S          seconds measured after the warm-up [0: none]",
        "  --warmup S            seconds whose sends are not counted [0]",
        "  --in-flight N         outstanding sends in all [-w]",
        "  --report-interval S   [10]",
        "  --json FILE           write the summary there",
        "  --group G             producer group [benchmark_producer]",
        "");

    private static final Map<String, String> FLAGS = LoadFlags.names("-n --namesrvAddr", "-t --topic",
        "-w --threadCount", "-s --messageSize", "-k --keyEnable", "-l --tagCount", "-q --messageQuantity",
        "-d --delayEnable", "-e --delayLevel", "-b --batchSize", "-p --propertySize", "-y --asyncEnable",
        "-a --aclEnable", "--duration", "--warmup", "--in-flight", "--json", "--report-interval", "--group");

    /** The official benchmark's pause after a send that failed on the wire or that the broker refused. */
    static final long ERROR_PAUSE_MS = 3000;
    /** DefaultMQProducer's default maxMessageSize. */
    static final int MAX_MESSAGE_SIZE = 4 * 1024 * 1024;
    /** Latencies above this are recorded as this (microseconds). */
    static final long HIGHEST_RT_US = TimeUnit.MINUTES.toMicros(10);
    /** How long the end of an async run waits for the last callbacks (the send timeout is 3 s). */
    static final long DRAIN_MS = 30_000;
    static final int DEFAULT_THREADS = 64;
    /** The official tool's MAX_LENGTH_ASYNC_QUEUE: how many async sends it lets wait. */
    static final int ASYNC_MAX_IN_FLIGHT = 10_000;
    /** More sending threads than this is a typo. */
    static final int MAX_THREADS = 10_000;
    /** A batch is one request; beyond this the encoded batch outgrows any sane frame. */
    static final int MAX_BATCH_SIZE = 10_000;
    /** Properties travel in a header field whose length is a Java short; half leaves room for separators. */
    static final int MAX_PROPERTY_SIZE = 16_384;
    static final int MAX_TAG_COUNT = 100_000;

    private LoadProducer() {
    }

    public static void main(String[] args) {
        LoadRun.main("LoadProducer", args, FLAGS, USAGE, LoadProducer::run);
    }

    /** The flags, read and checked before the client starts. */
    static final class Settings {
        String namesrv;
        String topic;
        String group;
        int threads;
        int inFlight;
        int messageSize;
        boolean keyEnable;
        int tagCount;
        long quantity;
        boolean delayEnable;
        int delayLevel;
        int batchSize;
        int propertySize;
        boolean async;
        long durationMs;
        long warmupMs;
        long reportMs;
        String jsonFile;

        static Settings read(LoadFlags f) {
            Settings s = new Settings();
            String env = System.getenv("NAMESRV_ADDR");
            s.namesrv = f.string("-n", env == null || env.isEmpty() ? "127.0.0.1:9876" : env);
            s.topic = f.string("-t", "BenchmarkTest");
            if (f.bool("-a", false)) {
                throw new LoadFlags.BadFlag("-a: ACL is not supported yet");
            }
            s.async = f.bool("-y", false);
            int w = f.smallInteger("-w", DEFAULT_THREADS, 1, MAX_THREADS);
            s.messageSize = f.smallInteger("-s", 128, 1, MAX_MESSAGE_SIZE);
            s.keyEnable = f.bool("-k", false);
            s.tagCount = f.smallInteger("-l", 0, 0, MAX_TAG_COUNT);
            s.quantity = f.integer("-q", 0, 0, Long.MAX_VALUE);
            s.delayEnable = f.bool("-d", false);
            s.delayLevel = f.smallInteger("-e", 1, 1, Integer.MAX_VALUE);
            s.batchSize = f.smallInteger("-b", 1, 1, MAX_BATCH_SIZE);
            if (s.delayEnable && s.batchSize > 1) {
                // the client refuses it on every send
                throw new LoadFlags.BadFlag("-d true cannot be combined with -b > 1: a batch carries no delay level");
            }
            s.propertySize = f.smallInteger("-p", 0, 0, MAX_PROPERTY_SIZE);
            s.durationMs = f.seconds("--duration", 0, 0);
            s.warmupMs = f.seconds("--warmup", 0, 0);
            s.reportMs = f.seconds("--report-interval", LoadFlags.DEFAULT_REPORT_SECONDS,
                LoadFlags.MIN_REPORT_SECONDS);
            s.jsonFile = f.has("--json") ? f.string("--json", null) : null;
            s.group = f.string("--group", "benchmark_producer");
            if (s.async) {
                // the official async mode: one thread, -w ignored, callbacks piling up to its queue limit
                s.threads = 1;
                s.inFlight = f.smallInteger("--in-flight", ASYNC_MAX_IN_FLIGHT, 1, MAX_THREADS);
            } else {
                s.inFlight = f.smallInteger("--in-flight", w, 1, MAX_THREADS);
                // each thread has one send outstanding, so fewer threads is the cap
                s.threads = Math.min(w, s.inFlight);
            }
            return s;
        }
    }

    /** What the sends did: everything (for the interval lines) and what started inside the measured time. */
    static final class Stats {
        final long measureFrom;
        final LongAdder sends = new LongAdder();
        final LongAdder messages = new LongAdder();
        final LongAdder sendFailed = new LongAdder();
        final LongAdder responseFailed = new LongAdder();
        final LongAdder rtSumUs = new LongAdder();
        final AtomicLong maxRtUs = new AtomicLong();
        final Recorder interval = new Recorder(HIGHEST_RT_US, 3);

        final LongAdder measuredSends = new LongAdder();
        final LongAdder measuredMessages = new LongAdder();
        final LongAdder measuredSendFailed = new LongAdder();
        final LongAdder measuredResponseFailed = new LongAdder();
        /** messages of the failed sends: the [Complete] line's Send Total counts every message tried */
        final LongAdder measuredFailedMessages = new LongAdder();
        final LongAdder measuredRtSumUs = new LongAdder();
        final AtomicLong measuredMaxRtUs = new AtomicLong();
        final Histogram measured = new ConcurrentHistogram(HIGHEST_RT_US, 3);
        final AtomicReference<String> firstError = new AtomicReference<>();

        Stats(long measureFrom) {
            this.measureFrom = measureFrom;
        }

        boolean counted(long startNanos) {
            return startNanos - measureFrom >= 0;
        }

        void ok(long startNanos, int count) {
            long us = Math.max(1, Math.min(HIGHEST_RT_US, (System.nanoTime() - startNanos) / 1000));
            sends.increment();
            messages.add(count);
            rtSumUs.add(us);
            raise(maxRtUs, us);
            interval.recordValue(us);
            if (counted(startNanos)) {
                measuredSends.increment();
                measuredMessages.add(count);
                measuredRtSumUs.add(us);
                raise(measuredMaxRtUs, us);
                measured.recordValue(us);
            }
        }

        void sendFailed(long startNanos, int count, Throwable why) {
            firstError.compareAndSet(null, LoadRun.oneLine(why));
            sendFailed.increment();
            if (counted(startNanos)) {
                measuredSendFailed.increment();
                measuredFailedMessages.add(count);
            }
        }

        void responseFailed(long startNanos, int count, String why) {
            firstError.compareAndSet(null, why);
            responseFailed.increment();
            if (counted(startNanos)) {
                measuredResponseFailed.increment();
                measuredFailedMessages.add(count);
            }
        }

        /** A send's outcome: SEND_OK, another status, or how it failed. */
        void completed(long startNanos, int count, SendResult r) {
            if (r.getSendStatus() == SendStatus.SEND_OK) {
                ok(startNanos, count);
            } else {
                responseFailed(startNanos, count, "send status " + r.getSendStatus());
            }
        }

        /** Classifies a failure as the official tool does; true when it pauses before the next send. */
        boolean failed(long startNanos, int count, Throwable e) {
            if (e instanceof MQBrokerException) {
                responseFailed(startNanos, count, LoadRun.oneLine(e));
                return true;
            }
            sendFailed(startNanos, count, e);
            return e instanceof RemotingException;
        }
    }

    static void raise(AtomicLong max, long value) {
        long prev = max.get();
        while (value > prev && !max.compareAndSet(prev, value)) {
            prev = max.get();
        }
    }

    /** Builds the messages of one send, with keys, tags, properties and delay as the flags say. */
    static final class Messages {
        private final Settings s;
        private final byte[] body;
        private final AtomicLong tagSeq = new AtomicLong();

        Messages(Settings s) {
            this.s = s;
            // alphanumeric, as the official tool's, so that a compressing path sees the same entropy
            String chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
            body = new byte[s.messageSize];
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0; i < body.length; i++) {
                body[i] = (byte) chars.charAt(random.nextInt(chars.length()));
            }
        }

        Message one() {
            Message m = new Message(s.topic, body);
            if (s.keyEnable) {
                m.setKeys(String.valueOf(System.currentTimeMillis() / 1000));
            }
            if (s.tagCount > 0) {
                m.setTags("tag" + (tagSeq.getAndIncrement() % s.tagCount));
            }
            if (s.propertySize > 0) {
                int seed = ThreadLocalRandom.current().nextInt(100);
                int size = 0;
                for (int i = 0; size <= s.propertySize; i++) {
                    String key = "prop" + i;
                    String value = "value" + (seed + i);
                    m.putUserProperty(key, value);
                    size += key.length() + value.length();
                }
            }
            if (s.delayEnable) {
                m.setDelayTimeLevel(s.delayLevel);
            }
            return m;
        }

        List<Message> batch(int n) {
            List<Message> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(one());
            }
            return list;
        }
    }

    static int run(LoadFlags flags, LoadRun run) throws Exception {
        Settings s = Settings.read(flags);
        LoadRun.prepareClient();
        LoadRun.line("topic: %s threadCount: %d inFlight: %d messageSize: %d batchSize: %d keyEnable: %s "
                + "propertySize: %d tagCount: %d aclEnable: false messageQuantity: %d delayEnable: %s delayLevel: %d "
                + "asyncEnable: %s duration: %d ms warmup: %d ms",
            s.topic, s.threads, s.inFlight, s.messageSize, s.batchSize, s.keyEnable, s.propertySize, s.tagCount,
            s.quantity, s.delayEnable, s.delayLevel, s.async, s.durationMs, s.warmupMs);

        DefaultMQProducer producer = new DefaultMQProducer(s.group);
        producer.setNamesrvAddr(s.namesrv);
        producer.setInstanceName(LoadRun.instanceName("LoadProducer"));
        // the load is on the broker: bodies above 4 KiB are not zipped on the way
        producer.setCompressMsgBodyOverHowmuch(Integer.MAX_VALUE);
        producer.start();
        Stats stats;
        long elapsedNs;
        try {
            long begin = System.nanoTime();
            long measureFrom = begin + TimeUnit.MILLISECONDS.toNanos(s.warmupMs);
            stats = new Stats(measureFrom);
            long endNanos = measureFrom + TimeUnit.MILLISECONDS.toNanos(s.durationMs);
            Messages messages = new Messages(s);
            run.every(s.reportMs, new Reporter(stats));
            if (s.async) {
                asyncSender(s, producer, messages, stats, run, endNanos);
            } else {
                syncSenders(s, producer, messages, stats, run, endNanos);
            }
            elapsedNs = Math.max(0, System.nanoTime() - measureFrom);
            run.stopTimer();
        } finally {
            producer.shutdown();
        }
        return finish(s, stats, elapsedNs);
    }

    /** The official tool's split of -q: an equal share per thread, the remainder to the first. */
    static long[] quotas(long quantity, int threads) {
        long[] q = new long[threads];
        if (quantity > 0) {
            Arrays.fill(q, quantity / threads);
            q[0] += quantity % threads;
        }
        return q;
    }

    /** Not stopped, and inside --duration when there is one (endNanos is then its end). */
    private static boolean going(Settings s, LoadRun run, long endNanos) {
        return !run.stopping() && (s.durationMs == 0 || System.nanoTime() - endNanos < 0);
    }

    private static void syncSenders(Settings s, DefaultMQProducer producer, Messages messages, Stats stats,
        LoadRun run, long endNanos) throws InterruptedException {
        long[] quotas = quotas(s.quantity, s.threads);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < s.threads; t++) {
            long quota = quotas[t];
            if (s.quantity > 0 && quota == 0) {
                break;
            }
            Thread thread = new Thread(() -> syncLoop(s, producer, messages, stats, run, endNanos, quota),
                "load-sender-" + t);
            threads.add(thread);
            thread.start();
        }
        for (Thread t : threads) {
            t.join();
        }
    }

    private static void syncLoop(Settings s, DefaultMQProducer producer, Messages messages, Stats stats,
        LoadRun run, long endNanos, long quota) {
        long left = quota;
        while (going(s, run, endNanos) && (quota == 0 || left > 0)) {
            int n = quota == 0 ? s.batchSize : (int) Math.min(s.batchSize, left);
            // a failed send uses its share of -q too, as the official tool counts attempts
            left -= n;
            long t0 = System.nanoTime();
            try {
                SendResult r = s.batchSize == 1 ? producer.send(messages.one()) : producer.send(messages.batch(n));
                stats.completed(t0, n, r);
            } catch (InterruptedException e) {
                stats.sendFailed(t0, n, e);
                return;
            } catch (Exception e) {
                if (stats.failed(t0, n, e) && pause(run)) {
                    return;
                }
            }
        }
    }

    /** The official tool's pause after some failures, cut short by a stop; true when stopping. */
    private static boolean pause(LoadRun run) {
        try {
            return run.awaitStop(ERROR_PAUSE_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private static void asyncSender(Settings s, DefaultMQProducer producer, Messages messages, Stats stats,
        LoadRun run, long endNanos) throws InterruptedException {
        Semaphore permits = new Semaphore(s.inFlight);
        long left = s.quantity;
        while (going(s, run, endNanos) && (s.quantity == 0 || left > 0)) {
            if (!permits.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                continue;
            }
            int n = s.quantity == 0 ? s.batchSize : (int) Math.min(s.batchSize, left);
            left -= n;
            long t0 = System.nanoTime();
            SendCallback callback = new SendCallback() {
                @Override
                public void onSuccess(SendResult r) {
                    stats.completed(t0, n, r);
                    permits.release();
                }

                @Override
                public void onException(Throwable e) {
                    stats.failed(t0, n, e);
                    permits.release();
                }
            };
            try {
                if (s.batchSize == 1) {
                    producer.send(messages.one(), callback);
                } else {
                    producer.send(messages.batch(n), callback);
                }
            } catch (Exception e) {
                // refused before it was handed over: no callback comes
                stats.failed(t0, n, e);
                permits.release();
            }
        }
        if (!permits.tryAcquire(s.inFlight, DRAIN_MS, TimeUnit.MILLISECONDS)) {
            System.err.println("LoadProducer: async sends still outstanding after " + DRAIN_MS + " ms");
        }
    }

    /** Every interval: the official tool's line (Max RT since the start, the rest over the interval) + percentiles. */
    static final class Reporter implements Runnable {
        private final Stats stats;
        private long lastAt = System.nanoTime();
        private long lastMessages;
        private long lastSends;
        private long lastRtSumUs;
        private Histogram recycled;

        Reporter(Stats stats) {
            this.stats = stats;
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            long messages = stats.messages.sum();
            long sends = stats.sends.sum();
            long rtSum = stats.rtSumUs.sum();
            Histogram h = stats.interval.getIntervalHistogram(recycled);
            recycled = h;
            double seconds = (now - lastAt) / 1e9;
            long dSends = sends - lastSends;
            LoadRun.line("Current Time: %d Send TPS: %d Max RT(ms): %d Average RT(ms): %7.3f Send Failed: %d "
                    + "Response Failed: %d p50(ms): %.3f p99(ms): %.3f p99.9(ms): %.3f",
                System.currentTimeMillis(), (long) ((messages - lastMessages) / seconds),
                Math.round(stats.maxRtUs.get() / 1000.0),
                dSends == 0 ? Double.NaN : (rtSum - lastRtSumUs) / 1000.0 / dSends, stats.sendFailed.sum(),
                stats.responseFailed.sum(), percentileMs(h, 50), percentileMs(h, 99), percentileMs(h, 99.9));
            lastAt = now;
            lastMessages = messages;
            lastSends = sends;
            lastRtSumUs = rtSum;
        }
    }

    static double percentileMs(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? 0.0 : h.getValueAtPercentile(percentile) / 1000.0;
    }

    private static int finish(Settings s, Stats stats, long elapsedNs) throws Exception {
        long sends = stats.measuredSends.sum();
        long messages = stats.measuredMessages.sum();
        long sendFailed = stats.measuredSendFailed.sum();
        long responseFailed = stats.measuredResponseFailed.sum();
        double seconds = elapsedNs / 1e9;
        double tps = seconds > 0 ? messages / seconds : 0;
        double avgRtMs = sends == 0 ? Double.NaN : stats.measuredRtSumUs.sum() / 1000.0 / sends;
        double maxRtMs = stats.measuredMaxRtUs.get() / 1000.0;
        Histogram h = stats.measured;
        LoadRun.line("[Complete] Send Total: %d Send TPS: %d Max RT(ms): %d Average RT(ms): %7.3f Send Failed: %d "
                + "Response Failed: %d p50(ms): %.3f p99(ms): %.3f p99.9(ms): %.3f",
            messages + stats.measuredFailedMessages.sum(), (long) tps, Math.round(maxRtMs), avgRtMs, sendFailed,
            responseFailed, percentileMs(h, 50), percentileMs(h, 99), percentileMs(h, 99.9));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tool", "java");
        m.put("role", "producer");
        m.put("topic", s.topic);
        m.put("threads", s.threads);
        m.put("inFlight", s.inFlight);
        m.put("messageSize", s.messageSize);
        m.put("batchSize", s.batchSize);
        m.put("measuredMs", Math.round(elapsedNs / 1e6));
        m.put("sends", sends);
        m.put("messages", messages);
        m.put("sendFailed", sendFailed);
        m.put("responseFailed", responseFailed);
        m.put("tps", tps);
        m.put("sendTps", seconds > 0 ? sends / seconds : 0.0);
        m.put("avgRtMs", avgRtMs);
        m.put("maxRtMs", maxRtMs);
        m.put("p50Ms", percentileMs(h, 50));
        m.put("p99Ms", percentileMs(h, 99));
        m.put("p999Ms", percentileMs(h, 99.9));
        String batch = s.batchSize > 1 ? String.format(Locale.ROOT, " (%d sends of %d)", sends, s.batchSize) : "";
        LoadRun.line("Summary: %d messages%s in %.3f s%s: %.1f msg/s, %.1f sends/s", messages, batch, seconds,
            LoadRun.warmupText(s.warmupMs), tps, seconds > 0 ? sends / seconds : 0.0);
        LoadRun.line("  send RT (ms): avg %.3f p50 %.3f p99 %.3f p99.9 %.3f max %.3f", avgRtMs, percentileMs(h, 50),
            percentileMs(h, 99), percentileMs(h, 99.9), maxRtMs);
        LoadRun.line("  send failed %d, response failed %d", sendFailed, responseFailed);
        LoadRun.summary(m, s.jsonFile);
        String firstError = stats.firstError.get();
        if (firstError != null) {
            System.err.println("LoadProducer: first failure: " + firstError);
        }
        if (stats.sends.sum() == 0) {
            System.err.println("LoadProducer: nothing was sent");
            return LoadRun.EXIT_FAILED;
        }
        return LoadRun.EXIT_OK;
    }
}
