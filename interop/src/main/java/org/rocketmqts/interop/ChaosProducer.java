package org.rocketmqts.interop;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;

/**
 * The chaos suite's producer on the official 4.9.8 client, twin of scripts/chaos/workload-child.ts:
 * {@code loops} threads each send keyed messages one at a time (ordered: one shard per thread, to
 * queue {@code loop % queues} through a selector) until standard input ends, and print one JSON
 * history line per send outcome, failures included; then {@code {"done":true}}.
 *
 * <pre>
 * ChaosProducer &lt;namesrvAddr&gt; &lt;topic&gt; &lt;group&gt; &lt;client&gt; &lt;loops&gt; &lt;intervalMs&gt; &lt;ordered&gt; [pollNameServerMs]
 * </pre>
 */
public final class ChaosProducer {
    static final String SHARD_PROPERTY = "chaosShard";
    static final String SEQ_PROPERTY = "chaosSeq";

    private ChaosProducer() {
    }

    static void line(Map<String, Object> value) {
        String text = Json.compact(value);
        synchronized (System.out) {
            System.out.println(text);
            System.out.flush();
        }
    }

    static String statusOf(Throwable error) {
        if (error instanceof MQBrokerException) {
            return "MQBrokerException:" + ((MQBrokerException) error).getResponseCode();
        }
        if (error instanceof MQClientException) {
            return "MQClientException:" + ((MQClientException) error).getResponseCode();
        }
        return error.getClass().getSimpleName();
    }

    /** Blocks until standard input reaches end of file (the runner closed it, or went away). */
    static void awaitEndOfInput() {
        InputStream in = System.in;
        byte[] buf = new byte[64];
        try {
            while (in.read(buf) >= 0) {
                // only the end matters
            }
        } catch (IOException ignored) {
            // same meaning as end of file
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7 && args.length != 8) {
            System.err.println(
                "usage: ChaosProducer <namesrvAddr> <topic> <group> <client> <loops> <intervalMs> <ordered> [pollNameServerMs]");
            System.exit(64);
        }
        String topic = args[1];
        String client = args[3];
        int loops = Integer.parseInt(args[4]);
        long intervalMs = Long.parseLong(args[5]);
        boolean ordered = Boolean.parseBoolean(args[6]);
        DefaultMQProducer producer = new DefaultMQProducer(args[2]);
        producer.setNamesrvAddr(args[0]);
        producer.setInstanceName(client);
        if (args.length > 7) {
            producer.setPollNameServerInterval(Integer.parseInt(args[7]));
        }
        producer.start();
        Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("ready", true);
        line(ready);
        AtomicBoolean stop = new AtomicBoolean();
        MessageQueueSelector selector = (mqs, msg, arg) -> mqs.get((Integer) arg % mqs.size());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < loops; i++) {
            final int loop = i;
            Thread t = new Thread(() -> sendLoop(producer, topic, client, loop, intervalMs, ordered, selector, stop),
                "chaos-send-" + i);
            t.start();
            threads.add(t);
        }
        awaitEndOfInput();
        stop.set(true);
        for (Thread t : threads) {
            t.join();
        }
        Map<String, Object> done = new LinkedHashMap<>();
        done.put("done", true);
        line(done);
        producer.shutdown();
        System.exit(0);
    }

    static void sendLoop(DefaultMQProducer producer, String topic, String client, int loop, long intervalMs,
        boolean ordered, MessageQueueSelector selector, AtomicBoolean stop) {
        String shard = client + "-s" + loop;
        for (long seq = 0; !stop.get(); seq++) {
            String key = client + "-" + loop + "-" + seq;
            Message msg = new Message(topic, "", key, key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            if (ordered) {
                msg.putUserProperty(SHARD_PROPERTY, shard);
                msg.putUserProperty(SEQ_PROPERTY, Long.toString(seq));
            }
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("kind", "send");
            long started = System.currentTimeMillis();
            try {
                SendResult r = ordered ? producer.send(msg, selector, loop) : producer.send(msg);
                long done = System.currentTimeMillis();
                event.put("t", done);
                event.put("client", client);
                event.put("key", key);
                if (ordered) {
                    event.put("shard", shard);
                    event.put("seq", seq);
                }
                event.put("ok", true);
                event.put("status", r.getSendStatus().name());
                event.put("queueId", r.getMessageQueue().getQueueId());
                event.put("queueOffset", r.getQueueOffset());
                event.put("msgId", r.getMsgId());
                event.put("latencyMs", done - started);
            } catch (Exception error) {
                long done = System.currentTimeMillis();
                event.put("t", done);
                event.put("client", client);
                event.put("key", key);
                if (ordered) {
                    event.put("shard", shard);
                    event.put("seq", seq);
                }
                event.put("ok", false);
                event.put("status", statusOf(error));
                event.put("latencyMs", done - started);
            }
            line(event);
            if (!stop.get()) {
                try {
                    Thread.sleep(intervalMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
