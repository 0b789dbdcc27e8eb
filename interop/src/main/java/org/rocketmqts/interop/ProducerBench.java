package org.rocketmqts.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * The official 4.9.8 DefaultMQProducer under the load scripts/bench-client.ts puts on our producer,
 * so that bench can print ours / official per case. The JVM stays up between cases (the bench sends
 * them one at a time, interleaved with its own), so the JIT warms once and both producers meet the
 * machine in the same minute.
 *
 * <pre>
 * ProducerBench &lt;namesrvAddr&gt; &lt;topic&gt; &lt;producerGroup&gt;
 *   stdin, one case per line: &lt;bodyBytes&gt; &lt;inFlight&gt; sync|async|threads &lt;warmupMs&gt; &lt;measureMs&gt;
 * </pre>
 *
 * Prints {"ready":true} once the producer started, then one JSON line per case; exits at end of input.
 * A case runs a warm-up (results dropped), waits until nothing is in flight, then the measured run:
 * sends are issued until measureMs has passed, and the run ends when the last one completes, so
 * sends / elapsed is the rate and every send of the run is in the latency histogram (nanoseconds,
 * HdrHistogram, 3 significant digits); the JVM's CPU time over the measured run comes with it. Styles:
 * <ul>
 * <li>sync: one thread, one send awaited at a time (inFlight must be 1);</li>
 * <li>async: one thread issuing send(msg, callback), at most inFlight outstanding (a semaphore);</li>
 * <li>threads: inFlight threads, each doing sync sends.</li>
 * </ul>
 * A fresh Message per send (the producer writes UNIQ_KEY into it), body of bodyBytes 'a's, no tags.
 */
public final class ProducerBench {
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** A case whose sends keep failing stops early instead of spinning through the whole run. */
    private static final long MAX_ERRORS = 100;
    private static final long DRAIN_SECONDS = 60;

    private ProducerBench() {
    }

    /** What one run counts; recorded from the sending threads and the callback threads alike. */
    static final class Run {
        final Histogram latency = new ConcurrentHistogram(HIGHEST_NANOS, 3);
        final LongAdder sends = new LongAdder();
        final LongAdder errors = new LongAdder();
        final AtomicReference<String> firstError = new AtomicReference<>();
        final long endNanos;

        Run(long endNanos) {
            this.endNanos = endNanos;
        }

        boolean going() {
            return System.nanoTime() < endNanos && errors.sum() < MAX_ERRORS;
        }

        void completed(long startNanos, SendResult r) {
            if (r.getSendStatus() != SendStatus.SEND_OK) {
                failed("send status " + r.getSendStatus());
                return;
            }
            latency.recordValue(Math.max(1, Math.min(HIGHEST_NANOS, System.nanoTime() - startNanos)));
            sends.increment();
        }

        void failed(Object why) {
            errors.increment();
            firstError.compareAndSet(null, String.valueOf(why));
        }
    }

    public static void main(String[] args) {
        int exit = 0;
        try {
            if (args.length != 3) {
                System.err.println("usage: ProducerBench <namesrvAddr> <topic> <producerGroup> (cases on stdin)");
                exit = 64;
            } else {
                serve(args[0], args[1], args[2]);
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

    private static void serve(String namesrvAddr, String topic, String group) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer(group);
        producer.setNamesrvAddr(namesrvAddr);
        producer.start();
        try {
            Map<String, Object> ready = new LinkedHashMap<>();
            ready.put("ready", true);
            ProbeOutput.line(ready);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] p = line.trim().split("\\s+");
                if (p.length == 1 && p[0].isEmpty()) {
                    continue;
                }
                if (p.length != 5) {
                    throw new IllegalArgumentException("bad case line: " + line);
                }
                ProbeOutput.line(runCase(producer, topic, Integer.parseInt(p[0]), Integer.parseInt(p[1]), p[2],
                    Long.parseLong(p[3]), Long.parseLong(p[4])));
            }
        } finally {
            producer.shutdown();
        }
    }

    static Map<String, Object> runCase(DefaultMQProducer producer, String topic, int bodyBytes, int inFlight,
        String style, long warmupMs, long measureMs) throws InterruptedException {
        if (style.equals("sync") && inFlight != 1) {
            throw new IllegalArgumentException("sync runs one send at a time, got inFlight " + inFlight);
        }
        byte[] body = new byte[bodyBytes];
        Arrays.fill(body, (byte) 'a');
        load(producer, topic, body, inFlight, style, warmupMs);
        long cpuBefore = processCpuNanos();
        long started = System.nanoTime();
        Run run = load(producer, topic, body, inFlight, style, measureMs);
        long elapsed = System.nanoTime() - started;
        long cpu = processCpuNanos() - cpuBefore;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("bodyBytes", bodyBytes);
        m.put("inFlight", inFlight);
        m.put("style", style);
        m.put("sends", run.sends.sum());
        m.put("errors", run.errors.sum());
        m.put("elapsedNs", elapsed);
        m.put("cpuNs", cpuBefore < 0 ? -1L : cpu);
        m.put("p50Ns", run.latency.getValueAtPercentile(50));
        m.put("p99Ns", run.latency.getValueAtPercentile(99));
        m.put("maxNs", run.latency.getMaxValue());
        m.put("firstError", run.firstError.get());
        return m;
    }

    /** CPU time of the whole JVM (every thread: senders, Netty, callbacks, JIT, GC), or -1 if unknown. */
    static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }

    /** Sends for durationMs in the given style; returns once nothing is in flight. */
    static Run load(DefaultMQProducer producer, String topic, byte[] body, int inFlight, String style,
        long durationMs) throws InterruptedException {
        Run run = new Run(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(durationMs));
        switch (style) {
            case "sync":
                syncLoop(producer, topic, body, run);
                break;
            case "threads":
                Thread[] threads = new Thread[inFlight];
                for (int t = 0; t < inFlight; t++) {
                    threads[t] = new Thread(() -> syncLoop(producer, topic, body, run), "bench-sender-" + t);
                    threads[t].start();
                }
                for (Thread t : threads) {
                    t.join();
                }
                break;
            case "async":
                asyncLoop(producer, topic, body, inFlight, run);
                break;
            default:
                throw new IllegalArgumentException("style must be sync, async or threads: " + style);
        }
        return run;
    }

    private static void syncLoop(DefaultMQProducer producer, String topic, byte[] body, Run run) {
        while (run.going()) {
            long t0 = System.nanoTime();
            try {
                run.completed(t0, producer.send(new Message(topic, body)));
            } catch (Exception e) {
                run.failed(e);
            }
        }
    }

    private static void asyncLoop(DefaultMQProducer producer, String topic, byte[] body, int inFlight, Run run)
        throws InterruptedException {
        Semaphore permits = new Semaphore(inFlight);
        for (;;) {
            permits.acquire();
            if (!run.going()) {
                permits.release();
                break;
            }
            long t0 = System.nanoTime();
            try {
                producer.send(new Message(topic, body), new SendCallback() {
                    @Override
                    public void onSuccess(SendResult r) {
                        run.completed(t0, r);
                        permits.release();
                    }

                    @Override
                    public void onException(Throwable e) {
                        run.failed(e);
                        permits.release();
                    }
                });
            } catch (Exception e) {
                // Refused before it was handed over (e.g. the async sender queue is full): no callback comes.
                run.failed(e);
                permits.release();
            }
        }
        if (!permits.tryAcquire(inFlight, DRAIN_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("async sends still in flight after " + DRAIN_SECONDS + " s");
        }
    }
}
