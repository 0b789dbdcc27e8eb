package org.rocketmqts.interop;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.rocketmq.client.consumer.DefaultLitePullConsumer;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.consumer.store.RemoteBrokerOffsetStore;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * The official 4.9.8 lite pull and pull consumers, for tests that set them next to ours.
 *
 * <pre>
 * PullConsumerProbe lite-group &lt;namesrv&gt; &lt;topic&gt; &lt;group&gt; &lt;clientIP&gt; &lt;timeoutMs&gt;
 * PullConsumerProbe lite-seek  &lt;namesrv&gt; &lt;topic&gt; &lt;brokerName&gt; &lt;queueId&gt; &lt;group&gt; &lt;op&gt;...
 * PullConsumerProbe pull       &lt;namesrv&gt; &lt;group&gt; [--from-committed] &lt;topic&gt;...
 * </pre>
 *
 * <b>lite-group</b>: a DefaultLitePullConsumer subscribing `topic` ("*", clustering, from the first
 * offset, no auto-commit) with the given client IP (the first part of its client id), polling in a loop.
 * The name server poll and the rebalance run every second here (30 s and 20 s upstream; the rebalance
 * period is a system property read once per JVM) so a group settles in seconds. It takes commands on
 * stdin, one a line: `commit` (commitSync, then each held queue's committed offset written to the broker
 * with a two-way call, since the client's own persist is oneway and periodic); `quit` or end of input
 * (shut down). Prints {"clientId":..} once started, {"held":[queueIds]} whenever its queues change,
 * {"msg":{..}} per message polled, {"committed":{queueId:offset}} after a commit and {"done":true} at the
 * end. Exit 0 after quit, 1 at the timeout.
 * <p>
 * <b>lite-seek</b>: a DefaultLitePullConsumer assigned the one queue (no auto-commit, pulls of 2 messages,
 * so that several batches wait in its cache when it seeks); per op, in order,
 * one line {"op":..,"offset":..,"first":msg|null}, where first is the first message poll returns after
 * the seek (null when none came within 500 ms, which only an op at the queue's end expects) and offset
 * the offset sought (null for begin and end, which the client does not report). Ops:
 * `ts:&lt;millis&gt;` (offsetForTimestamp, then seek there), `offset:&lt;n&gt;` (seek), `begin` (seekToBegin),
 * `end` (seekToEnd).
 * <p>
 * <b>pull</b>: a DefaultMQPullConsumer of `group` reading every read queue of each topic; per queue
 * {"queue":{topic,queueId,min,max,committed}} (committed: fetchConsumeOffset from the broker), then one
 * {"msg":..} per message from the committed offset (with --from-committed, when there is one) or the
 * min offset, up to max; {"done":true} at the end.
 * <p>
 * Messages are printed as ClientProbe prints them, plus brokerName, storeTimestamp and bornTimestamp. Exit 2 on a
 * failure (with an {"error":..} line), 64 on bad arguments.
 */
public final class PullConsumerProbe {
    private static final long POLL_MS = 100;
    private static final long SEEK_WAIT_MS = 3_000;
    private static final long END_WAIT_MS = 500;
    /** Small batches keep more of them cached, which a seek must drop. */
    private static final int SEEK_PULL_BATCH = 2;

    private PullConsumerProbe() {
    }

    public static void main(String[] args) {
        int exit;
        try {
            String mode = args.length > 0 ? args[0] : "";
            if (mode.equals("lite-group") && args.length == 6) {
                exit = liteGroup(args[1], args[2], args[3], args[4], Long.parseLong(args[5]));
            } else if (mode.equals("lite-seek") && args.length >= 7) {
                exit = liteSeek(args);
            } else if (mode.equals("pull") && args.length >= 4) {
                exit = pull(args);
            } else {
                System.err.println("usage: see the class comment");
                exit = 64;
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

    static Map<String, Object> message(MessageExt m) {
        Map<String, Object> d = ClientProbe.describe(m);
        d.put("brokerName", m.getBrokerName());
        d.put("storeTimestamp", String.valueOf(m.getStoreTimestamp()));
        d.put("bornTimestamp", String.valueOf(m.getBornTimestamp()));
        return d;
    }

    private static void printMessage(MessageExt m) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("msg", message(m));
        ProbeOutput.line(line);
    }

    private static void one(String key, Object value) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put(key, value);
        ProbeOutput.line(line);
    }

    // ------------------------------------------------------------------------------------------
    // lite-group

    private static int liteGroup(String namesrv, String topic, String group, String clientIP, long timeoutMs)
        throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        System.setProperty("rocketmq.client.rebalance.waitInterval", "1000");
        BlockingQueue<String> commands = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    commands.add(line.trim());
                }
            } catch (Exception ignored) {
                // the end of input is a quit either way
            }
            commands.add("quit");
        }, "probe-stdin");
        reader.setDaemon(true);

        DefaultLitePullConsumer c = new DefaultLitePullConsumer(group);
        c.setNamesrvAddr(namesrv);
        c.setClientIP(clientIP);
        c.setAutoCommit(false);
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        c.setPollNameServerInterval(1000);
        c.subscribe(topic, "*");
        c.start();
        one("clientId", c.buildMQClientId());
        reader.start();

        Set<Integer> held = null;
        try {
            while (System.currentTimeMillis() < deadline) {
                Set<Integer> now = new TreeSet<>();
                for (MessageQueue mq : c.assignment()) {
                    if (mq.getTopic().equals(topic)) {
                        now.add(mq.getQueueId());
                    }
                }
                if (!now.equals(held)) {
                    held = now;
                    one("held", new ArrayList<>(now));
                }
                for (MessageExt m : c.poll(POLL_MS)) {
                    printMessage(m);
                }
                String command = commands.poll();
                if (command == null) {
                    continue;
                }
                if (command.equals("quit")) {
                    one("done", Boolean.TRUE);
                    return 0;
                }
                if (command.equals("commit")) {
                    c.commitSync();
                    RemoteBrokerOffsetStore store = (RemoteBrokerOffsetStore) c.getOffsetStore();
                    Map<String, Object> committed = new TreeMap<>();
                    for (MessageQueue mq : c.assignment()) {
                        long offset = c.committed(mq);
                        if (offset >= 0) {
                            store.updateConsumeOffsetToBroker(mq, offset, false);
                        }
                        committed.put(String.valueOf(mq.getQueueId()), String.valueOf(offset));
                    }
                    one("committed", committed);
                }
            }
            one("done", Boolean.FALSE);
            return 1;
        } finally {
            c.shutdown();
        }
    }

    // ------------------------------------------------------------------------------------------
    // lite-seek

    private static int liteSeek(String[] args) throws Exception {
        String namesrv = args[1];
        MessageQueue mq = new MessageQueue(args[2], args[3], Integer.parseInt(args[4]));
        DefaultLitePullConsumer c = new DefaultLitePullConsumer(args[5]);
        c.setNamesrvAddr(namesrv);
        c.setAutoCommit(false);
        c.setPullBatchSize(SEEK_PULL_BATCH);
        c.assign(Collections.singletonList(mq));
        c.start();
        try {
            for (int i = 6; i < args.length; i++) {
                String op = args[i];
                Long offset = null;
                if (op.startsWith("ts:")) {
                    offset = c.offsetForTimestamp(mq, Long.parseLong(op.substring(3)));
                    c.seek(mq, offset);
                } else if (op.startsWith("offset:")) {
                    offset = Long.parseLong(op.substring(7));
                    c.seek(mq, offset);
                } else if (op.equals("begin")) {
                    c.seekToBegin(mq);
                } else if (op.equals("end")) {
                    c.seekToEnd(mq);
                } else {
                    throw new IllegalArgumentException("unknown op " + op);
                }
                Map<String, Object> out = new LinkedHashMap<>();
                out.put("op", op);
                out.put("offset", offset == null ? null : String.valueOf(offset));
                out.put("first", firstAfterSeek(c, op.equals("end") ? END_WAIT_MS : SEEK_WAIT_MS));
                ProbeOutput.line(out);
            }
        } finally {
            c.shutdown();
        }
        return 0;
    }

    private static Map<String, Object> firstAfterSeek(DefaultLitePullConsumer c, long waitMs) {
        long until = System.currentTimeMillis() + waitMs;
        while (System.currentTimeMillis() < until) {
            List<MessageExt> got = c.poll(POLL_MS);
            if (!got.isEmpty()) {
                return message(got.get(0));
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------------------
    // pull

    @SuppressWarnings("deprecation")
    private static int pull(String[] args) throws Exception {
        String namesrv = args[1];
        String group = args[2];
        boolean fromCommitted = false;
        List<String> topics = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            if (args[i].equals("--from-committed")) {
                fromCommitted = true;
            } else {
                topics.add(args[i]);
            }
        }
        DefaultMQPullConsumer c = new DefaultMQPullConsumer(group);
        c.setNamesrvAddr(namesrv);
        c.start();
        try {
            for (String topic : topics) {
                Collection<MessageQueue> queues = c.fetchSubscribeMessageQueues(topic);
                List<MessageQueue> sorted = new ArrayList<>(queues);
                Collections.sort(sorted);
                for (MessageQueue mq : sorted) {
                    long min = c.minOffset(mq);
                    long max = c.maxOffset(mq);
                    long committed = c.fetchConsumeOffset(mq, true);
                    Map<String, Object> q = new LinkedHashMap<>();
                    q.put("topic", topic);
                    q.put("queueId", mq.getQueueId());
                    q.put("min", String.valueOf(min));
                    q.put("max", String.valueOf(max));
                    q.put("committed", String.valueOf(committed));
                    one("queue", q);
                    long offset = fromCommitted && committed >= 0 ? committed : min;
                    while (offset < max) {
                        PullResult r = c.pull(mq, "*", offset, 32);
                        if (r.getPullStatus() != PullStatus.FOUND) {
                            throw new IllegalStateException("pull " + mq + " at " + offset + ": " + r.getPullStatus());
                        }
                        for (MessageExt m : r.getMsgFoundList()) {
                            printMessage(m);
                        }
                        offset = r.getNextBeginOffset();
                    }
                }
            }
            one("done", Boolean.TRUE);
        } finally {
            c.shutdown();
        }
        return 0;
    }
}
