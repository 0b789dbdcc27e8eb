package org.rocketmqts.interop;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * The Java side of `rmq bench consumer`: the official 4.9.8 DefaultMQPushConsumer (concurrent listener)
 * driven with the flags of the official benchmark Consumer plus ours, as `rmq bench consumer` (issue 13),
 * printing the same lines.
 *
 * <p>Every delivered message is timed born-to-consume (B2C: now - bornTimestamp) and store-to-consume
 * (S2C: now - storeTimestamp), in ms. A listener call is answered RECONSUME_LATER with probability
 * `-r`; its messages count as FAIL. `messages` counts deliveries (as the official TPS does), `--count`
 * the successful ones. Deliveries after the warm-up and before the stop count in the summary; the
 * measured time runs from the end of the warm-up to the stop (the delivery that reached --count, the
 * end of --duration, or a signal).
 */
public final class LoadConsumer {
    static final String USAGE = String.join("\n",
        "usage: LoadConsumer [flags]  (official benchmark Consumer flags, plus ours)",
        "  -n namesrvAddr        [NAMESRV_ADDR, else 127.0.0.1:9876]",
        "  -t topic              [BenchmarkTest]",
        "  -w threadCount        [20] (consumeThreadMin and Max)",
        "  -g group              [benchmark_consumer]",
        "  -p suffixEnable       [false] (adds _<ms % 100> to the group)",
        "  -f filterType         TAG or SQL92 (with -e)",
        "  -e expression         a file holding the expression, or the expression itself",
        "  -r failRate           [0] fraction of listener calls answered RECONSUME_LATER",
        "  -a aclEnable          [false; true is not supported yet]",
        "  --duration S          seconds measured after the warm-up [0: none]",
        "  --warmup S            seconds whose deliveries are not counted [0]",
        "  --count N             stop after N messages consumed [0: none]",
        "  --from first|last     where a new group starts [last]",
        "  --batch-max-size N    consumeMessageBatchMaxSize [1]",
        "  --pull-batch-size N   pullBatchSize [32]",
        "  --report-interval S   [10]",
        "  --json FILE           write the summary there",
        "");

    private static final Map<String, String> FLAGS = LoadFlags.names("-n --namesrvAddr", "-t --topic",
        "-w --threadCount", "-g --group", "-p --suffixEnable", "-f --filterType", "-e --expression",
        "-r --failRate", "-a --aclEnable", "--duration", "--warmup", "--count", "--from", "--json",
        "--report-interval", "--batch-max-size", "--pull-batch-size");

    /** Latencies above this are recorded as this (ms): a backlog may be hours old. */
    static final long HIGHEST_MS = TimeUnit.DAYS.toMillis(7);
    static final int DEFAULT_THREADS = 20;
    /** The client's own bounds of consumeThreadMin/Max, consumeMessageBatchMaxSize and pullBatchSize. */
    static final int MAX_THREADS = 1000;
    static final int MAX_BATCH = 1024;
    static final int DEFAULT_PULL_BATCH_SIZE = 32;
    /** The official tool's group suffix: the current time modulo this. */
    static final int GROUP_SUFFIX_MODULUS = 100;

    private LoadConsumer() {
    }

    public static void main(String[] args) {
        LoadRun.main("LoadConsumer", args, FLAGS, USAGE, LoadConsumer::run);
    }

    /** The flags, read and checked before the client starts. */
    static final class Settings {
        String namesrv;
        String topic;
        int threads;
        String group;
        boolean suffix;
        String filterType;
        String expression;
        double failRate;
        long durationMs;
        long warmupMs;
        long count;
        boolean fromFirst;
        int batchMaxSize;
        int pullBatchSize;
        long reportMs;
        String jsonFile;

        static Settings read(LoadFlags f) throws Exception {
            Settings s = new Settings();
            String env = System.getenv("NAMESRV_ADDR");
            s.namesrv = f.string("-n", env == null || env.isEmpty() ? "127.0.0.1:9876" : env);
            s.topic = f.string("-t", "BenchmarkTest");
            if (f.bool("-a", false)) {
                throw new LoadFlags.BadFlag("-a: ACL is not supported yet");
            }
            s.threads = f.smallInteger("-w", DEFAULT_THREADS, 1, MAX_THREADS);
            s.suffix = f.bool("-p", false);
            String prefix = f.string("-g", "benchmark_consumer");
            s.group = s.suffix ? prefix + "_" + (System.currentTimeMillis() % GROUP_SUFFIX_MODULUS) : prefix;
            s.filterType = f.choice("-f", null, "TAG", "SQL92");
            // the official tool ignores one without the other and consumes everything: that hides a typo
            if (s.filterType != null && !f.has("-e")) {
                throw new LoadFlags.BadFlag("-f " + s.filterType + " needs -e (the expression, or a file holding it)");
            }
            if (s.filterType == null && f.has("-e")) {
                throw new LoadFlags.BadFlag("-e needs -f TAG or -f SQL92");
            }
            s.expression = f.has("-e") ? expression(f.string("-e", null)) : null;
            s.failRate = f.decimal("-r", 0, 0, 1);
            s.durationMs = f.seconds("--duration", 0, 0);
            s.warmupMs = f.seconds("--warmup", 0, 0);
            s.count = f.integer("--count", 0, 0, Long.MAX_VALUE);
            s.fromFirst = f.choice("--from", "last", "first", "last").equals("first");
            s.batchMaxSize = f.smallInteger("--batch-max-size", 1, 1, MAX_BATCH);
            s.pullBatchSize = f.smallInteger("--pull-batch-size", DEFAULT_PULL_BATCH_SIZE, 1, MAX_BATCH);
            s.reportMs = f.seconds("--report-interval", LoadFlags.DEFAULT_REPORT_SECONDS,
                LoadFlags.MIN_REPORT_SECONDS);
            s.jsonFile = f.has("--json") ? f.string("--json", null) : null;
            return s;
        }

        /** The official tool reads the expression from a file; a value naming no file is the expression. */
        private static String expression(String value) throws Exception {
            File file = new File(value);
            if (file.isFile()) {
                String text = new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8).trim();
                if (text.isEmpty()) {
                    throw new LoadFlags.BadFlag("-e: the file " + value + " is empty");
                }
                return text;
            }
            return value;
        }
    }

    /** What the listener saw: everything (for the interval lines) and what came inside the measured time. */
    static final class Stats {
        final long measureFrom;
        final LongAdder received = new LongAdder();
        final LongAdder failed = new LongAdder();
        final LongAdder b2cSum = new LongAdder();
        final LongAdder s2cSum = new LongAdder();
        /** reset every interval, as the official tool does */
        final AtomicLong intervalMaxB2c = new AtomicLong();
        final AtomicLong intervalMaxS2c = new AtomicLong();
        final Recorder intervalS2c = new Recorder(HIGHEST_MS, 3);
        final AtomicLong succeeded = new AtomicLong();

        final LongAdder measured = new LongAdder();
        final LongAdder measuredFailed = new LongAdder();
        final LongAdder measuredB2cSum = new LongAdder();
        final LongAdder measuredS2cSum = new LongAdder();
        final AtomicLong measuredMaxB2c = new AtomicLong();
        final AtomicLong measuredMaxS2c = new AtomicLong();
        final Histogram measuredS2c = new ConcurrentHistogram(HIGHEST_MS, 3);
        /** nanoTime of the stop: the delivery that reached --count, else when the run was stopped */
        final AtomicReference<Long> stoppedAt = new AtomicReference<>();

        Stats(long measureFrom) {
            this.measureFrom = measureFrom;
        }

        void delivered(List<MessageExt> msgs, boolean fail, boolean counted) {
            long now = System.currentTimeMillis();
            for (MessageExt m : msgs) {
                long b2c = Math.max(0, now - m.getBornTimestamp());
                long s2c = Math.max(0, now - m.getStoreTimestamp());
                b2cSum.add(b2c);
                s2cSum.add(s2c);
                LoadProducer.raise(intervalMaxB2c, b2c);
                LoadProducer.raise(intervalMaxS2c, s2c);
                intervalS2c.recordValue(Math.min(HIGHEST_MS, s2c));
                if (counted) {
                    measuredB2cSum.add(b2c);
                    measuredS2cSum.add(s2c);
                    LoadProducer.raise(measuredMaxB2c, b2c);
                    LoadProducer.raise(measuredMaxS2c, s2c);
                    measuredS2c.recordValue(Math.min(HIGHEST_MS, s2c));
                }
            }
            received.add(msgs.size());
            if (fail) {
                failed.add(msgs.size());
            }
            if (counted) {
                measured.add(msgs.size());
                if (fail) {
                    measuredFailed.add(msgs.size());
                }
            }
        }
    }

    static int run(LoadFlags flags, LoadRun run) throws Exception {
        Settings s = Settings.read(flags);
        LoadRun.prepareClient();
        LoadRun.line("topic: %s, threadCount %d, group: %s, suffix: %s, filterType: %s, expression: %s, "
                + "aclEnable: false, from: %s, count: %d, duration: %d ms, warmup: %d ms",
            s.topic, s.threads, s.group, s.suffix, s.filterType, s.expression, s.fromFirst ? "first" : "last",
            s.count, s.durationMs, s.warmupMs);

        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(s.group);
        consumer.setNamesrvAddr(s.namesrv);
        consumer.setInstanceName(LoadRun.instanceName("LoadConsumer"));
        consumer.setConsumeThreadMin(s.threads);
        consumer.setConsumeThreadMax(s.threads);
        consumer.setConsumeMessageBatchMaxSize(s.batchMaxSize);
        consumer.setPullBatchSize(s.pullBatchSize);
        consumer.setConsumeFromWhere(s.fromFirst ? ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET
            : ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET);
        if (s.filterType == null) {
            consumer.subscribe(s.topic, "*");
        } else if (s.filterType.equals("TAG")) {
            consumer.subscribe(s.topic, MessageSelector.byTag(s.expression));
        } else {
            consumer.subscribe(s.topic, MessageSelector.bySql(s.expression));
        }

        long begin = System.nanoTime();
        long measureFrom = begin + TimeUnit.MILLISECONDS.toNanos(s.warmupMs);
        Stats stats = new Stats(measureFrom);
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            long now = System.nanoTime();
            boolean fail = s.failRate > 0 && ThreadLocalRandom.current().nextDouble() < s.failRate;
            // what arrives after the stop is acknowledged but not counted: the run has ended
            boolean counted = now - measureFrom >= 0 && !run.stopping();
            stats.delivered(msgs, fail, counted);
            if (!fail && s.count > 0 && stats.succeeded.addAndGet(msgs.size()) >= s.count) {
                stats.stoppedAt.compareAndSet(null, now);
                run.requestStop();
            }
            return fail ? ConsumeConcurrentlyStatus.RECONSUME_LATER : ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        run.every(s.reportMs, new Reporter(stats));
        try {
            consumer.start();
            LoadRun.line("Consumer Started.");
            if (s.durationMs > 0) {
                long end = measureFrom + TimeUnit.MILLISECONDS.toNanos(s.durationMs);
                run.awaitStop(Math.max(0, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
            } else {
                run.awaitStop(-1);
            }
            stats.stoppedAt.compareAndSet(null, System.nanoTime());
            run.requestStop();
            run.stopTimer();
        } finally {
            consumer.shutdown();
        }
        return finish(s, stats);
    }

    /** Every interval: the official tool's line (maxima over the interval) + the interval's p99 of S2C. */
    static final class Reporter implements Runnable {
        private final Stats stats;
        private long lastAt = System.nanoTime();
        private long lastReceived;
        private long lastFailed;
        private long lastB2c;
        private long lastS2c;
        private Histogram recycled;

        Reporter(Stats stats) {
            this.stats = stats;
        }

        @Override
        public void run() {
            long now = System.nanoTime();
            long received = stats.received.sum();
            long failed = stats.failed.sum();
            long b2c = stats.b2cSum.sum();
            long s2c = stats.s2cSum.sum();
            Histogram h = stats.intervalS2c.getIntervalHistogram(recycled);
            recycled = h;
            long d = received - lastReceived;
            LoadRun.line("Current Time: %d TPS: %d FAIL: %d AVG(B2C) RT(ms): %7.3f AVG(S2C) RT(ms): %7.3f "
                    + "MAX(B2C) RT(ms): %d MAX(S2C) RT(ms): %d p99(S2C)(ms): %.3f",
                System.currentTimeMillis(), (long) (d / ((now - lastAt) / 1e9)), failed - lastFailed,
                d == 0 ? Double.NaN : (b2c - lastB2c) / (double) d, d == 0 ? Double.NaN : (s2c - lastS2c) / (double) d,
                stats.intervalMaxB2c.getAndSet(0), stats.intervalMaxS2c.getAndSet(0), p99(h));
            lastAt = now;
            lastReceived = received;
            lastFailed = failed;
            lastB2c = b2c;
            lastS2c = s2c;
        }
    }

    static double p99(Histogram h) {
        return h.getTotalCount() == 0 ? 0.0 : h.getValueAtPercentile(99);
    }

    private static int finish(Settings s, Stats stats) throws Exception {
        long elapsedNs = Math.max(0, stats.stoppedAt.get() - stats.measureFrom);
        long messages = stats.measured.sum();
        long failed = stats.measuredFailed.sum();
        double seconds = elapsedNs / 1e9;
        double tps = seconds > 0 ? messages / seconds : 0;
        double avgB2c = messages == 0 ? Double.NaN : stats.measuredB2cSum.sum() / (double) messages;
        double avgS2c = messages == 0 ? Double.NaN : stats.measuredS2cSum.sum() / (double) messages;
        double p99 = p99(stats.measuredS2c);
        LoadRun.line("Summary: %d messages in %.3f s%s: %.1f msg/s, failed %d", messages, seconds,
            LoadRun.warmupText(s.warmupMs), tps, failed);
        LoadRun.line("  born-to-consume (ms): avg %.3f max %.3f", avgB2c, (double) stats.measuredMaxB2c.get());
        LoadRun.line("  store-to-consume (ms): avg %.3f max %.3f p99 %.3f", avgS2c,
            (double) stats.measuredMaxS2c.get(), p99);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("tool", "java");
        m.put("role", "consumer");
        m.put("topic", s.topic);
        m.put("group", s.group);
        m.put("measuredMs", Math.round(elapsedNs / 1e6));
        m.put("messages", messages);
        m.put("failed", failed);
        m.put("tps", tps);
        m.put("avgB2CMs", avgB2c);
        m.put("avgS2CMs", avgS2c);
        m.put("maxB2CMs", stats.measuredMaxB2c.get());
        m.put("maxS2CMs", stats.measuredMaxS2c.get());
        m.put("p99S2CMs", p99);
        LoadRun.summary(m, s.jsonFile);
        if (stats.received.sum() == 0) {
            System.err.println("LoadConsumer: nothing was consumed");
            return LoadRun.EXIT_FAILED;
        }
        return LoadRun.EXIT_OK;
    }
}
