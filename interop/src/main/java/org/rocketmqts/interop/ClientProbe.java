package org.rocketmqts.interop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageClientExt;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The official 4.9.x client driven from the interop tests; prints one JSON line per result.
 *
 * <pre>
 * ClientProbe produce &lt;namesrv&gt; &lt;topic&gt; &lt;count&gt; [--mode sync|async|oneway|batch] [--group g]
 *                     [--tags A,B] [--body-size n]
 *     message i: tag tags[i % tags.length], keys "key-i k2-i", user property idx=i, body "body-i" padded
 * ClientProbe pull &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; [--commit] [--max n]
 *     every message of every read queue from its min offset; --commit stores the next offsets on the broker
 * </pre>
 */
public final class ClientProbe {
    private ClientProbe() {
    }

    private static String option(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    private static boolean flag(String[] args, String name) {
        for (String a : args) {
            if (a.equals(name)) {
                return true;
            }
        }
        return false;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: ClientProbe produce|pull ...");
            System.exit(64);
        }
        try {
            if (args[0].equals("produce")) {
                produce(args);
            } else if (args[0].equals("pull")) {
                pull(args);
            } else {
                System.err.println("unknown command " + args[0]);
                System.exit(64);
            }
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(2);
        }
        System.exit(0);
    }

    static Message message(String topic, int i, String[] tags, int bodySize) {
        StringBuilder body = new StringBuilder("body-" + i);
        while (body.length() < bodySize) {
            body.append('.');
        }
        Message m = new Message(topic, tags[i % tags.length], "key-" + i + " k2-" + i,
            body.toString().getBytes(StandardCharsets.UTF_8));
        m.putUserProperty("idx", String.valueOf(i));
        return m;
    }

    static Map<String, Object> sendResult(SendResult r) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", r.getSendStatus().name());
        out.put("msgId", r.getMsgId());
        out.put("offsetMsgId", r.getOffsetMsgId());
        out.put("brokerName", r.getMessageQueue().getBrokerName());
        out.put("queueId", r.getMessageQueue().getQueueId());
        out.put("queueOffset", String.valueOf(r.getQueueOffset()));
        return out;
    }

    static void produce(String[] args) throws Exception {
        String namesrv = args[1];
        String topic = args[2];
        int count = Integer.parseInt(args[3]);
        String mode = option(args, "--mode", "sync");
        String[] tags = option(args, "--tags", "TagA,TagB,TagC").split(",");
        int bodySize = Integer.parseInt(option(args, "--body-size", "0"));
        DefaultMQProducer producer = new DefaultMQProducer(option(args, "--group", "probe-producer"));
        producer.setNamesrvAddr(namesrv);
        producer.setSendMsgTimeout(10_000);
        producer.start();
        try {
            if (mode.equals("batch")) {
                List<Message> batch = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    batch.add(message(topic, i, tags, bodySize));
                }
                System.out.println(Json.compact(sendResult(producer.send(batch))));
            } else if (mode.equals("async")) {
                CountDownLatch done = new CountDownLatch(count);
                AtomicInteger failed = new AtomicInteger();
                for (int i = 0; i < count; i++) {
                    producer.send(message(topic, i, tags, bodySize), new SendCallback() {
                        @Override
                        public void onSuccess(SendResult r) {
                            synchronized (System.out) {
                                System.out.println(Json.compact(sendResult(r)));
                            }
                            done.countDown();
                        }

                        @Override
                        public void onException(Throwable e) {
                            failed.incrementAndGet();
                            System.err.println("async send failed: " + e);
                            done.countDown();
                        }
                    });
                }
                if (!done.await(60, TimeUnit.SECONDS) || failed.get() > 0) {
                    throw new IllegalStateException("async sends failed: " + failed.get());
                }
            } else {
                for (int i = 0; i < count; i++) {
                    Message m = message(topic, i, tags, bodySize);
                    if (mode.equals("oneway")) {
                        producer.sendOneway(m);
                    } else {
                        System.out.println(Json.compact(sendResult(producer.send(m))));
                    }
                }
            }
        } finally {
            producer.shutdown();
        }
    }

    static Map<String, Object> describe(MessageExt m) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("topic", m.getTopic());
        out.put("queueId", m.getQueueId());
        out.put("queueOffset", String.valueOf(m.getQueueOffset()));
        out.put("commitLogOffset", String.valueOf(m.getCommitLogOffset()));
        out.put("msgId", m.getMsgId());
        out.put("offsetMsgId", m instanceof MessageClientExt ? ((MessageClientExt) m).getOffsetMsgId() : null);
        out.put("tags", m.getTags());
        out.put("keys", m.getKeys());
        out.put("bodyHex", Hex.of(m.getBody()));
        out.put("reconsumeTimes", m.getReconsumeTimes());
        out.put("properties", new TreeMap<>(m.getProperties()));
        return out;
    }

    @SuppressWarnings("deprecation")
    static void pull(String[] args) throws Exception {
        String namesrv = args[1];
        String topic = args[2];
        String group = args[3];
        boolean commit = flag(args, "--commit");
        long max = Long.parseLong(option(args, "--max", String.valueOf(Long.MAX_VALUE)));
        DefaultMQPullConsumer consumer = new DefaultMQPullConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.start();
        try {
            Collection<MessageQueue> queues = consumer.fetchSubscribeMessageQueues(topic);
            List<MessageQueue> sorted = new ArrayList<>(queues);
            java.util.Collections.sort(sorted);
            long total = 0;
            for (MessageQueue mq : sorted) {
                long offset = consumer.minOffset(mq);
                long end = consumer.maxOffset(mq);
                while (offset < end && total < max) {
                    PullResult r = consumer.pull(mq, "*", offset, 32);
                    if (r.getPullStatus() != PullStatus.FOUND) {
                        System.err.println("pull " + mq + " at " + offset + ": " + r.getPullStatus());
                        break;
                    }
                    for (MessageExt m : r.getMsgFoundList()) {
                        System.out.println(Json.compact(describe(m)));
                        total++;
                    }
                    offset = r.getNextBeginOffset();
                }
                if (commit) {
                    consumer.updateConsumeOffset(mq, offset);
                    // persistAll sends oneway frames that can still be unsent when the probe
                    // exits (a queue's offset then never reaches the broker); a two-way call
                    // returns only once the broker has stored the offset.
                    ((org.apache.rocketmq.client.consumer.store.RemoteBrokerOffsetStore) consumer.getOffsetStore())
                        .updateConsumeOffsetToBroker(mq, offset, false);
                }
            }
            Map<String, Object> summary = new LinkedHashMap<>();
            summary.put("done", Boolean.TRUE);
            summary.put("messages", String.valueOf(total));
            System.out.println(Json.compact(summary));
        } finally {
            consumer.shutdown();
        }
    }
}
