package org.rocketmqts.interop;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.store.DefaultMessageStore;
import org.apache.rocketmq.store.MessageExtBrokerInner;
import org.apache.rocketmq.store.PutMessageResult;
import org.apache.rocketmq.store.PutMessageStatus;
import org.apache.rocketmq.store.config.FlushDiskType;
import org.apache.rocketmq.store.config.MessageStoreConfig;
import org.apache.rocketmq.store.stats.BrokerStatsManager;

/**
 * The official 4.9.x DefaultMessageStore appending the messages of scripts/bench-store.ts (topic
 * BenchTopic, queue appender % 8, 1 KiB body, TAGS/KEYS/UNIQ_KEY), so that bench can print ours /
 * official ratios. Every appender is a thread calling the synchronous putMessage in a loop: that is
 * the broker's send path, one thread per in-flight request. Prints one JSON line.
 *
 * <pre>
 * StoreBench async|sync &lt;appenders&gt; &lt;MiB (async) | seconds (sync)&gt; [parent dir]
 * </pre>
 *
 * The store runs as a broker would run it (default file sizes, ASYNC_MASTER, reput into consume
 * queues and the index in the background); only the HA port is ephemeral, so runs never collide on
 * 10912. An OS_PAGECACHE_BUSY answer (the commit log lock held over osPageCacheBusyTimeOutMills) is
 * retried, as a client retries SYSTEM_BUSY, and counted; any other failure ends the run with exit 1.
 * The number of fdatasyncs is not reported: the store keeps no count of its flushes.
 */
public final class StoreBench {
    private static final String TOPIC = "BenchTopic";
    private static final String PROPS =
        "TAGS\u0001TagA\u0002KEYS\u0001key\u0002UNIQ_KEY\u00017F0000010001000000000000000000";
    private static final byte[] BODY = new byte[1024];
    private static final long TAGS_CODE = MessageExtBrokerInner.tagsString2tagsCode("TagA");
    private static final InetSocketAddress BORN_HOST = new InetSocketAddress("10.0.0.2", 50000);
    private static final InetSocketAddress STORE_HOST = new InetSocketAddress("10.0.0.1", 10911);
    private static final int WARMUP_MSGS = 10_000;
    private static final long WARMUP_MAX_NANOS = 2_000_000_000L;
    /** An ASYNC run stops here even if its bytes are not written yet, like the TS bench's 60 s cap. */
    private static final long ASYNC_MAX_NANOS = 60_000_000_000L;

    static {
        Arrays.fill(BODY, (byte) 'a');
    }

    private StoreBench() {
    }

    /** A fresh message per put, as SendMessageProcessor builds one per request. */
    static MessageExtBrokerInner message(int queueId) {
        MessageExtBrokerInner m = new MessageExtBrokerInner();
        m.setTopic(TOPIC);
        m.setQueueId(queueId);
        m.setFlag(0);
        m.setBody(BODY);
        Map<String, String> props = new HashMap<>(8);
        props.put("TAGS", "TagA");
        props.put("KEYS", "key");
        props.put("UNIQ_KEY", "7F0000010001000000000000000000");
        MessageAccessor.setProperties(m, props);
        m.setPropertiesString(PROPS);
        m.setTagsCode(TAGS_CODE);
        m.setSysFlag(0);
        m.setBornTimestamp(1_700_000_000_000L);
        m.setBornHost(BORN_HOST);
        m.setStoreHost(STORE_HOST);
        m.setReconsumeTimes(0);
        m.setPreparedTransactionOffset(0);
        return m;
    }

    static final class Totals {
        final AtomicLong msgs = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong busy = new AtomicLong();
        volatile String failure;
    }

    /**
     * N threads, each appending up to perThread messages or until the deadline (System.nanoTime),
     * released together. Returns the elapsed nanoseconds from the release to the last thread's end.
     */
    static long run(DefaultMessageStore store, int appenders, long perThread, long deadline, Totals totals)
        throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        Thread[] threads = new Thread[appenders];
        for (int t = 0; t < appenders; t++) {
            final int queueId = t % 8;
            threads[t] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long msgs = 0;
                long bytes = 0;
                for (long i = 0; i < perThread && totals.failure == null; i++) {
                    PutMessageResult r = store.putMessage(message(queueId));
                    if (r.getPutMessageStatus() == PutMessageStatus.OS_PAGECACHE_BUSY) {
                        totals.busy.incrementAndGet();
                        i--;
                        if (System.nanoTime() > deadline) {
                            break;
                        }
                        continue;
                    }
                    if (r.getPutMessageStatus() != PutMessageStatus.PUT_OK) {
                        totals.failure = "append failed: " + r.getPutMessageStatus();
                        break;
                    }
                    msgs++;
                    bytes += r.getAppendMessageResult().getWroteBytes();
                    if (System.nanoTime() > deadline) {
                        break;
                    }
                }
                totals.msgs.addAndGet(msgs);
                totals.bytes.addAndGet(bytes);
            }, "appender-" + t);
            threads[t].start();
        }
        long started = System.nanoTime();
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        return System.nanoTime() - started;
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            System.err.println("StoreBench: cannot delete " + dir + ": " + e);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3 || !("async".equals(args[0]) || "sync".equals(args[0]))) {
            System.err.println("usage: StoreBench async|sync <appenders> <MiB (async) | seconds (sync)> [parent dir]");
            System.exit(64);
        }
        boolean sync = "sync".equals(args[0]);
        int appenders = Integer.parseInt(args[1]);
        double amount = Double.parseDouble(args[2]);
        Path parent = Paths.get(args.length > 3 ? args[3] : System.getProperty("java.io.tmpdir"));
        Path dir = Files.createTempDirectory(parent, "rmq-bench-official-");
        // Also when the parent closes our stdin (ParentWatchdog) or kills us with SIGTERM.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));

        MessageStoreConfig config = new MessageStoreConfig();
        config.setStorePathRootDir(dir.toString());
        config.setFlushDiskType(sync ? FlushDiskType.SYNC_FLUSH : FlushDiskType.ASYNC_FLUSH);
        config.setHaListenPort(0);
        BrokerStatsManager stats = new BrokerStatsManager("DefaultCluster", true);
        DefaultMessageStore store = new DefaultMessageStore(config, stats, null, new BrokerConfig());
        if (!store.load()) {
            throw new IllegalStateException("DefaultMessageStore.load() failed over " + dir);
        }
        store.start();

        Totals warm = new Totals();
        run(store, appenders, (WARMUP_MSGS + appenders - 1) / appenders, System.nanoTime() + WARMUP_MAX_NANOS, warm);
        Totals totals = new Totals();
        long nanos;
        if (warm.failure != null) {
            totals.failure = "warm-up " + warm.failure;
            nanos = 0;
        } else if (sync) {
            nanos = run(store, appenders, Long.MAX_VALUE, System.nanoTime() + (long) (amount * 1e9), totals);
        } else {
            // The same count as the TS bench: ceil(total / record size / appenders) per appender.
            long recordSize = warm.bytes.get() / Math.max(1, warm.msgs.get());
            long perThread = (long) Math.ceil(amount * 1024 * 1024 / recordSize / appenders);
            nanos = run(store, appenders, perThread, System.nanoTime() + ASYNC_MAX_NANOS, totals);
        }

        store.shutdown();
        store.destroy();
        stats.shutdown();
        deleteTree(dir);
        if (totals.failure != null) {
            System.err.println("StoreBench: " + totals.failure);
            System.exit(1);
        }
        double seconds = nanos / 1e9;
        long msgs = totals.msgs.get();
        StringBuilder out = new StringBuilder();
        out.append("{\"mode\":\"").append(args[0]).append('"')
            .append(",\"appenders\":").append(appenders)
            .append(",\"msgs\":").append(msgs)
            .append(",\"bytes\":").append(totals.bytes.get())
            .append(",\"seconds\":").append(String.format(Locale.ROOT, "%.4f", seconds))
            .append(",\"msgsPerSecond\":").append(String.format(Locale.ROOT, "%.1f", msgs / seconds))
            .append(",\"mbPerSecond\":")
            .append(String.format(Locale.ROOT, "%.2f", totals.bytes.get() / 1e6 / seconds));
        if (totals.busy.get() > 0) {
            out.append(",\"busyRetries\":").append(totals.busy.get());
        }
        out.append('}');
        System.out.println(out);
        System.out.flush();
        System.exit(0);
    }
}
