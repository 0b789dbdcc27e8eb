package org.rocketmqts.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.SerializeType;

/**
 * The official 4.9.8 DefaultMQProducer sending batches the way upstream's benchmark BatchProducer
 * does (each of N threads builds a fresh list of messages, no keys or tags, and sends it
 * synchronously with send(Collection)), for scripts/bench-batch.ts, which drives our broker and the
 * official one with it in one run.
 *
 * <pre>
 * BatchProducerBench &lt;namesrvAddr&gt; &lt;topic&gt; &lt;producerGroup&gt; [ROCKETMQ|JSON]
 *   stdin, one case per line: &lt;batchSize&gt; &lt;bodyBytes&gt; &lt;threads&gt; &lt;warmupMs&gt; &lt;measureMs&gt;
 * </pre>
 *
 * Requests carry binary (ROCKETMQ) headers unless JSON is asked for: BatchProducer sets that
 * serialize type, and so does this program. As there, body compression is off.
 *
 * Prints {"ready":true} once the producer started; per case, after the warm-up (results dropped)
 * {"measuring":true} as the measured run starts (so the caller can read the broker's CPU time there),
 * then one JSON line with its figures once the last send of the run has completed. Exits at end of input.
 */
public final class BatchProducerBench {
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** A case whose sends keep failing stops early instead of spinning through the whole run. */
    private static final long MAX_ERRORS = 100;

    private BatchProducerBench() {
    }

    /** What one run counts, from every sending thread. */
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
    }

    public static void main(String[] args) {
        int exit = 0;
        try {
            if (args.length != 3 && args.length != 4) {
                System.err.println(
                    "usage: BatchProducerBench <namesrvAddr> <topic> <producerGroup> [ROCKETMQ|JSON] (cases on stdin)");
                exit = 64;
            } else {
                SerializeType type = SerializeType.valueOf(args.length == 4 ? args[3] : "ROCKETMQ");
                // Read when the client's RemotingCommand class loads, so before the producer exists.
                System.setProperty(RemotingCommand.SERIALIZE_TYPE_PROPERTY, type.name());
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
        producer.setCompressMsgBodyOverHowmuch(Integer.MAX_VALUE);
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
                ProbeOutput.line(runCase(producer, topic, Integer.parseInt(p[0]), Integer.parseInt(p[1]),
                    Integer.parseInt(p[2]), Long.parseLong(p[3]), Long.parseLong(p[4])));
            }
        } finally {
            producer.shutdown();
        }
    }

    static Map<String, Object> runCase(DefaultMQProducer producer, String topic, int batchSize, int bodyBytes,
        int threads, long warmupMs, long measureMs) throws InterruptedException {
        byte[] body = new byte[bodyBytes];
        Arrays.fill(body, (byte) 'a');
        load(producer, topic, body, batchSize, threads, warmupMs);
        Map<String, Object> measuring = new LinkedHashMap<>();
        measuring.put("measuring", true);
        ProbeOutput.line(measuring);
        long cpuBefore = ProducerBench.processCpuNanos();
        long started = System.nanoTime();
        Run run = load(producer, topic, body, batchSize, threads, measureMs);
        long elapsed = System.nanoTime() - started;
        long cpu = ProducerBench.processCpuNanos() - cpuBefore;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("batchSize", batchSize);
        m.put("bodyBytes", bodyBytes);
        m.put("threads", threads);
        m.put("sends", run.sends.sum());
        m.put("messages", run.sends.sum() * batchSize);
        m.put("errors", run.errors.sum());
        m.put("elapsedNs", elapsed);
        m.put("cpuNs", cpuBefore < 0 ? -1L : cpu);
        m.put("p50Ns", run.latency.getValueAtPercentile(50));
        m.put("p99Ns", run.latency.getValueAtPercentile(99));
        m.put("maxNs", run.latency.getMaxValue());
        m.put("firstError", run.firstError.get());
        return m;
    }

    /** Sends from `threads` threads for durationMs; returns once every thread has finished its last send. */
    static Run load(DefaultMQProducer producer, String topic, byte[] body, int batchSize, int threads,
        long durationMs) throws InterruptedException {
        Run run = new Run(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(durationMs));
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(() -> sendLoop(producer, topic, body, batchSize, run), "bench-batch-" + t);
            workers[t].start();
        }
        for (Thread t : workers) {
            t.join();
        }
        return run;
    }

    private static void sendLoop(DefaultMQProducer producer, String topic, byte[] body, int batchSize, Run run) {
        while (run.going()) {
            // Fresh messages per send, as BatchProducer: the producer writes each one's UNIQ_KEY into it.
            List<Message> batch = new ArrayList<>(batchSize);
            for (int i = 0; i < batchSize; i++) {
                batch.add(new Message(topic, body));
            }
            long t0 = System.nanoTime();
            try {
                SendResult r = producer.send(batch);
                if (r.getSendStatus() != SendStatus.SEND_OK) {
                    run.errors.increment();
                    run.firstError.compareAndSet(null, "send status " + r.getSendStatus());
                    continue;
                }
                run.latency.recordValue(Math.max(1, Math.min(HIGHEST_NANOS, System.nanoTime() - t0)));
                run.sends.increment();
            } catch (Exception e) {
                run.errors.increment();
                run.firstError.compareAndSet(null, String.valueOf(e));
            }
        }
    }
}
