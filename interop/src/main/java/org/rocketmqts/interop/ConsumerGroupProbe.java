package org.rocketmqts.interop;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;

/**
 * Several official 4.9.8 DefaultMQPushConsumers of one group in one JVM, each with its own instance
 * name (so its own client instance and client id), subscribing one topic from the first offset; for
 * tests that put them in a group next to our consumers.
 *
 * <pre>
 * ConsumerGroupProbe &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; concurrently|orderly|broadcasting &lt;members&gt; &lt;timeoutMs&gt;
 *                    [--instance-prefix p] [--client-ips ip,ip,..] [--rebalance-ms ms]
 *                    [--poll-namesrv-ms ms] [--persist-ms ms] [--heartbeat-ms ms]
 * </pre>
 *
 * Member i is named `&lt;prefix&gt;-i` [prefix: java-&lt;pid&gt;] and, with --client-ips, uses the i-th address
 * as its client IP (the first part of its client id). The client's periods are short here so the
 * group settles in seconds: rebalance [1000 ms, 20 s upstream, a system property read once per JVM],
 * name server poll [1000 ms], offset persist [1000 ms], heartbeat [1000 ms].
 *
 * Prints one JSON object per line:
 * <ul>
 * <li>{"member":i,"clientId":..} once member i started;</li>
 * <li>{"member":i,"held":[queueIds]} whenever the queues of the topic member i holds change (checked
 * every 50 ms; orderly members hold a queue only once it is locked on the broker);</li>
 * <li>{"member":i,"msg":{msgId, topic, queueId, queueOffset, reconsumeTimes, keys, key, seq,
 * receivedAt}} per delivery (key and seq are the user properties of that name, or null);</li>
 * <li>{"done":true,"deliveries":n} when the timeout is up or on SIGTERM, after every member shut down
 * (which persists its offsets).</li>
 * </ul>
 * Every delivery is acknowledged (CONSUME_SUCCESS, or SUCCESS for orderly members). Exit 0 at the
 * end, 2 on a start failure (with an {"error":..} line), 64 on bad arguments.
 */
public final class ConsumerGroupProbe {
    private static final long HELD_CHECK_MS = 50;

    private final List<DefaultMQPushConsumer> members = new ArrayList<>();
    private final AtomicInteger deliveries = new AtomicInteger();
    private final AtomicBoolean finished = new AtomicBoolean();

    private ConsumerGroupProbe() {
    }

    private static String pid() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
    }

    private static String option(String[] args, String name, String fallback) {
        for (int i = 6; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    public static void main(String[] args) {
        if (args.length < 6) {
            System.err.println("usage: see the class comment");
            System.exit(64);
        }
        String mode = args[3];
        if (!"concurrently".equals(mode) && !"orderly".equals(mode) && !"broadcasting".equals(mode)) {
            System.err.println("mode must be concurrently, orderly or broadcasting");
            System.exit(64);
        }
        int exit;
        try {
            exit = new ConsumerGroupProbe().run(args);
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

    private int run(String[] args) throws Exception {
        String namesrv = args[0];
        String topic = args[1];
        String group = args[2];
        String mode = args[3];
        int count = Integer.parseInt(args[4]);
        long deadline = System.currentTimeMillis() + Long.parseLong(args[5]);
        String prefix = option(args, "--instance-prefix", "java-" + pid());
        String ipsText = option(args, "--client-ips", "");
        String[] ips = ipsText.isEmpty() ? new String[0] : ipsText.split(",");
        int pollMs = Integer.parseInt(option(args, "--poll-namesrv-ms", "1000"));
        int persistMs = Integer.parseInt(option(args, "--persist-ms", "1000"));
        int heartbeatMs = Integer.parseInt(option(args, "--heartbeat-ms", "1000"));
        // RebalanceService reads it once, when its class loads (the first member's start).
        System.setProperty("rocketmq.client.rebalance.waitInterval", option(args, "--rebalance-ms", "1000"));

        Runtime.getRuntime().addShutdownHook(new Thread(this::finish, "group-probe-finish"));
        for (int i = 0; i < count; i++) {
            final int member = i;
            DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
            c.setNamesrvAddr(namesrv);
            c.setInstanceName(prefix + "-" + i);
            if (i < ips.length) {
                c.setClientIP(ips[i]);
            }
            c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            c.setPollNameServerInterval(pollMs);
            c.setPersistConsumerOffsetInterval(persistMs);
            c.setHeartbeatBrokerInterval(heartbeatMs);
            if ("broadcasting".equals(mode)) {
                c.setMessageModel(MessageModel.BROADCASTING);
            }
            c.subscribe(topic, "*");
            if ("orderly".equals(mode)) {
                c.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
                    for (MessageExt m : msgs) {
                        report(member, m);
                    }
                    return ConsumeOrderlyStatus.SUCCESS;
                });
            } else {
                c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
                    for (MessageExt m : msgs) {
                        report(member, m);
                    }
                    return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                });
            }
            synchronized (members) {
                members.add(c);
            }
            c.start();
            Map<String, Object> started = new LinkedHashMap<>();
            started.put("member", member);
            started.put("clientId", c.getDefaultMQPushConsumerImpl().getmQClientFactory().getClientId());
            ProbeOutput.line(started);
        }

        List<List<Integer>> last = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            last.add(null);
        }
        while (System.currentTimeMillis() < deadline && !finished.get()) {
            for (int i = 0; i < count; i++) {
                List<Integer> held = held(members.get(i), topic);
                if (!held.equals(last.get(i))) {
                    last.set(i, held);
                    Map<String, Object> line = new LinkedHashMap<>();
                    line.put("member", i);
                    line.put("held", held);
                    ProbeOutput.line(line);
                }
            }
            Thread.sleep(HELD_CHECK_MS);
        }
        finish();
        return 0;
    }

    private static List<Integer> held(DefaultMQPushConsumer c, String topic) {
        List<Integer> ids = new ArrayList<>();
        for (MessageQueue mq : c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().keySet()) {
            if (mq.getTopic().equals(topic)) {
                ids.add(mq.getQueueId());
            }
        }
        Collections.sort(ids);
        return ids;
    }

    private void report(int member, MessageExt m) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("msgId", m.getMsgId());
        d.put("topic", m.getTopic());
        d.put("queueId", m.getQueueId());
        d.put("queueOffset", m.getQueueOffset());
        d.put("reconsumeTimes", m.getReconsumeTimes());
        d.put("keys", m.getKeys());
        d.put("key", m.getUserProperty("key"));
        d.put("seq", m.getUserProperty("seq"));
        d.put("receivedAt", System.currentTimeMillis());
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("member", member);
        line.put("msg", d);
        ProbeOutput.line(line);
        deliveries.incrementAndGet();
    }

    /** Shuts every member down once (offsets persisted, orderly queues unlocked), then the summary. */
    private void finish() {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        List<DefaultMQPushConsumer> all;
        synchronized (members) {
            all = new ArrayList<>(members);
        }
        for (DefaultMQPushConsumer c : all) {
            try {
                c.shutdown();
            } catch (RuntimeException e) {
                e.printStackTrace();
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("done", true);
        out.put("deliveries", deliveries.get());
        ProbeOutput.line(out);
    }
}
