package org.rocketmqts.interop.client5;

import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.ClientConfig;
import org.apache.rocketmq.client.consumer.AckResult;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.PopResult;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.impl.ClientRemotingProcessor;
import org.apache.rocketmq.client.impl.consumer.DefaultMQPushConsumerImpl;
import org.apache.rocketmq.client.impl.mqclient.MQClientAPIExt;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.message.MessageRequestMode;
import org.apache.rocketmq.remoting.CommandCustomHeader;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.RequestCode;
import org.apache.rocketmq.remoting.protocol.header.AckMessageRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.ChangeInvisibleTimeRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.NotificationRequestHeader;
import org.apache.rocketmq.remoting.protocol.header.PopMessageRequestHeader;

/**
 * POP with the official 5.5.0 remoting client (rocketmq-client 5.5.0) against a broker: the official
 * 5.5.0 broker (to pin the reference behaviour) or ours. One JSON object per line on stdout.
 *
 * <pre>
 * PopProbe push &lt;namesrv&gt; &lt;brokerAddr&gt; &lt;topic&gt; &lt;group&gt; &lt;members&gt; &lt;count&gt; &lt;timeoutMs&gt; [flags]
 *     creates the topic (--queues, default 1) on brokerAddr, sets the group's request mode to POP
 *     (SET_MESSAGE_REQUEST_MODE, popShareQueueNum --share, default 0) unless --no-set-mode, starts
 *     `members` DefaultMQPushConsumer of the group with setClientRebalance(false) (subscription "*",
 *     first offset), waits until each holds a POP assignment, then sends `count` messages (keys k-i,
 *     tag TagA, user property idx = i) and prints one {"member":m,"msg":{...}} line per delivery
 *     (unless --quiet) and a {"done":...} summary once every message is settled and nothing more
 *     arrived for --quiet-ms (default 3000), or at the timeout.
 *     --fail K --fail-idx a,b,..: answer RECONSUME_LATER to the first K deliveries of those messages;
 *     --always-fail-idx c,d,..: always RECONSUME_LATER (settled after R + 1 deliveries; the summary's
 *     dlqMaxOffset says what %DLQ%group holds after); --pop-batch n: setPopBatchNums; --max-reconsume R: setMaxReconsumeTimes; --pop-delay-s S: overwrite the push
 *     consumer's pop delay levels (10 s, 30 s, ... by default) with S seconds so a retry comes back
 *     within a test's time; --invisible-ms: setPopInvisibleTime; --senders n: sending threads;
 *     --threads n: consume threads; --backlog: send everything before the members start;
 *     --others: other clients (ours) are members too: done once nothing arrived for --quiet-ms.
 *     The summary has firstDelivery/lastDelivery (epoch ms) and born-to-consumed latency percentiles.
 * PopProbe raw &lt;namesrv&gt; &lt;brokerAddr&gt; &lt;brokerName&gt; &lt;topic&gt; &lt;group&gt; &lt;timeoutMs&gt;
 *     a fixed list of cases over MQClientAPIExt (popMessageAsync, ackMessageAsync, batchAckMessageAsync,
 *     changeInvisibleTimeAsync, notification) and the same requests sent raw through its remoting
 *     client, printing {"case":name,...} with the broker's code, remark and response header fields,
 *     and the messages with their POP_CK handle; then a FIFO group (order=true, attemptId) and a revive
 *     (no ack: the message comes back after its invisible time). Ends with {"done":true}.
 * </pre>
 * --exit-on-stdin-close: exit when stdin ends (the parent died), for runs spawned with a stdin pipe.
 */
public final class PopProbe {
    private static final long RPC_MS = 5_000;

    private PopProbe() {
    }

    public static void main(String[] args) {
        int exit;
        try {
            exit = dispatch(args);
        } catch (Throwable e) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("error", e.getClass().getName());
            m.put("message", String.valueOf(e.getMessage()));
            Client5Probe.line(m);
            e.printStackTrace();
            exit = 2;
        }
        System.exit(exit);
    }

    private static int dispatch(String[] a) throws Exception {
        String mode = a.length > 0 ? a[0] : "";
        Map<String, String> flags = new HashMap<>();
        List<String> pos = new ArrayList<>();
        for (int i = 1; i < a.length; i++) {
            if (a[i].startsWith("--")) {
                String k = a[i].substring(2);
                boolean bare = k.equals("no-set-mode") || k.equals("quiet") || k.equals("exit-on-stdin-close")
                    || k.equals("backlog") || k.equals("others");
                flags.put(k, bare ? "true" : a[++i]);
            } else {
                pos.add(a[i]);
            }
        }
        if (flags.containsKey("exit-on-stdin-close")) {
            watchStdin();
        }
        if (mode.equals("push") && pos.size() == 7) {
            return push(pos, flags);
        }
        if (mode.equals("raw") && pos.size() == 6) {
            return raw(pos, flags);
        }
        System.err.println("usage: PopProbe push <namesrv> <brokerAddr> <topic> <group> <members> <count> <timeoutMs> [flags]");
        System.err.println("       PopProbe raw <namesrv> <brokerAddr> <brokerName> <topic> <group> <timeoutMs>");
        return 64;
    }

    /** A killed parent closes our stdin: exit then, so no JVM outlives its test or bench. */
    private static void watchStdin() {
        Thread t = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // discard
                }
            } catch (Exception ignored) {
                // stdin gone: same as EOF
            }
            Runtime.getRuntime().halt(3);
        }, "stdin-watch");
        t.setDaemon(true);
        t.start();
    }

    private static int intFlag(Map<String, String> f, String k, int d) {
        return f.containsKey(k) ? Integer.parseInt(f.get(k)) : d;
    }

    static String pid() {
        return java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
    }

    private static DefaultMQProducer producer(String namesrv, String group) throws Exception {
        DefaultMQProducer p = new DefaultMQProducer(group);
        p.setNamesrvAddr(namesrv);
        p.setInstanceName(group + "-" + pid());
        p.setSendMsgTimeout(10_000);
        p.start();
        return p;
    }

    private static void createTopic(DefaultMQProducer p, String brokerAddr, String topic, int queues) throws Exception {
        TopicConfig tc = new TopicConfig(topic, queues, queues);
        p.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl()
            .createTopic(brokerAddr, "TBW102", tc, RPC_MS);
    }

    static Map<String, Object> msg(MessageExt m) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("topic", m.getTopic());
        o.put("msgId", m.getMsgId());
        o.put("uniqKey", m.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX));
        o.put("queue", m.getQueueId());
        o.put("offset", m.getQueueOffset());
        o.put("reconsumeTimes", m.getReconsumeTimes());
        o.put("keys", m.getKeys());
        o.put("tags", m.getTags());
        o.put("idx", m.getUserProperty("idx"));
        o.put("popCk", m.getProperty(MessageConst.PROPERTY_POP_CK));
        o.put("bornAt", m.getBornTimestamp());
        o.put("storeAt", m.getStoreTimestamp());
        o.put("properties", new TreeMap<>(m.getProperties()));
        return o;
    }

    // ------------------------------------------------------------------------------------------
    // push: official push consumers in POP mode

    private static final class Settle {
        final int count;
        final int fail;
        final Set<Integer> failIdx;
        final Set<Integer> alwaysIdx;
        final int maxReconsume;
        final Map<Integer, AtomicInteger> deliveries = new ConcurrentHashMap<>();
        final Map<Integer, Boolean> succeeded = new ConcurrentHashMap<>();
        final Map<Integer, List<Integer>> reconsumeTimes = new ConcurrentHashMap<>();
        final AtomicInteger[] perMember;
        final AtomicLong lastDelivery = new AtomicLong();
        final AtomicLong firstDelivery = new AtomicLong();
        final List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger unexpected = new AtomicInteger();

        Settle(int count, int members, int fail, Set<Integer> failIdx, Set<Integer> alwaysIdx, int maxReconsume) {
            this.count = count;
            this.fail = fail;
            this.failIdx = failIdx;
            this.alwaysIdx = alwaysIdx;
            this.maxReconsume = maxReconsume;
            perMember = new AtomicInteger[members];
            for (int i = 0; i < members; i++) {
                perMember[i] = new AtomicInteger();
            }
        }

        boolean failing(int idx, int nth) {
            return alwaysIdx.contains(idx) || (failIdx.contains(idx) && nth <= fail);
        }

        /** Every message succeeded, or (always failing) was delivered maxReconsume + 1 times. */
        boolean settled() {
            for (int i = 0; i < count; i++) {
                if (succeeded.containsKey(i)) {
                    continue;
                }
                AtomicInteger d = deliveries.get(i);
                if (alwaysIdx.contains(i) && d != null && d.get() >= maxReconsume + 1) {
                    continue;
                }
                return false;
            }
            return true;
        }
    }

    private static Set<Integer> indexes(String list) {
        Set<Integer> out = new HashSet<>();
        if (list != null && !list.isEmpty()) {
            for (String s : list.split(",")) {
                out.add(Integer.parseInt(s.trim()));
            }
        }
        return out;
    }

    /** Sends count messages (keys k-i, tag TagA, idx = i) from `senders` threads; records time and failures. */
    private static void sendAll(DefaultMQProducer producer, String topic, int count, int senders, long deadline,
        Map<String, Object> out) throws InterruptedException {
        long start = System.currentTimeMillis();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger sendFailures = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < Math.max(1, senders); t++) {
            Thread th = new Thread(() -> {
                int i;
                // past the deadline the rest counts as failed, so the summary still comes out in time
                while ((i = next.getAndIncrement()) < count) {
                    if (System.currentTimeMillis() > deadline) {
                        sendFailures.incrementAndGet();
                        continue;
                    }
                    Message msg = new Message(topic, "TagA", "k-" + i, ("pop-" + i).getBytes(StandardCharsets.UTF_8));
                    msg.putUserProperty("idx", Integer.toString(i));
                    try {
                        SendResult r = producer.send(msg);
                        if (r.getSendStatus() != org.apache.rocketmq.client.producer.SendStatus.SEND_OK) {
                            sendFailures.incrementAndGet();
                        }
                    } catch (Exception e) {
                        sendFailures.incrementAndGet();
                    }
                }
            });
            th.start();
            threads.add(th);
        }
        for (Thread th : threads) {
            th.join();
        }
        out.put("sendMs", System.currentTimeMillis() - start);
        out.put("sendFailures", sendFailures.get());
    }

    private static int push(List<String> p, Map<String, String> f) throws Exception {
        String namesrv = p.get(0);
        String brokerAddr = p.get(1);
        String topic = p.get(2);
        String group = p.get(3);
        int members = Integer.parseInt(p.get(4));
        int count = Integer.parseInt(p.get(5));
        long deadline = System.currentTimeMillis() + Long.parseLong(p.get(6));
        boolean quiet = f.containsKey("quiet");
        long quietMs = intFlag(f, "quiet-ms", 3_000);
        Set<Integer> failIdx = indexes(f.get("fail-idx"));
        Set<Integer> alwaysIdx = indexes(f.get("always-fail-idx"));
        int maxReconsume = intFlag(f, "max-reconsume", 16);
        Settle st = new Settle(count, members, intFlag(f, "fail", 0), failIdx, alwaysIdx, maxReconsume);

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("clientVersion", MQVersion.getVersionDesc(MQVersion.CURRENT_VERSION));
        DefaultMQProducer producer = producer(namesrv, group + "_pp");
        List<DefaultMQPushConsumer> consumers = new ArrayList<>();
        try {
            createTopic(producer, brokerAddr, topic, intFlag(f, "queues", 1));
            if (!f.containsKey("no-set-mode")) {
                producer.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl().setMessageRequestMode(
                    brokerAddr, topic, group, MessageRequestMode.POP, intFlag(f, "share", 0), RPC_MS);
                out.put("setMode", "POP");
            }
            // --backlog: every message is stored before the members start (a pop + ack throughput run)
            boolean backlog = f.containsKey("backlog");
            if (backlog) {
                sendAll(producer, topic, count, intFlag(f, "senders", 1), deadline, out);
            }
            for (int m = 0; m < members; m++) {
                final int member = m;
                DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
                c.setNamesrvAddr(namesrv);
                c.setInstanceName("pop-" + m + "-" + pid());
                c.setClientRebalance(false);
                c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
                c.setHeartbeatBrokerInterval(1_000);
                c.setMaxReconsumeTimes(maxReconsume);
                if (f.containsKey("invisible-ms")) {
                    c.setPopInvisibleTime(Long.parseLong(f.get("invisible-ms")));
                }
                if (f.containsKey("pop-batch")) {
                    c.setPopBatchNums(Integer.parseInt(f.get("pop-batch")));
                }
                if (f.containsKey("threads")) {
                    c.setConsumeThreadMin(Integer.parseInt(f.get("threads")));
                    c.setConsumeThreadMax(Integer.parseInt(f.get("threads")));
                }
                c.subscribe(topic, "*");
                c.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
                    long now = System.currentTimeMillis();
                    ConsumeConcurrentlyStatus status = ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
                    for (MessageExt m2 : msgs) {
                        st.perMember[member].incrementAndGet();
                        st.firstDelivery.compareAndSet(0, now);
                        st.lastDelivery.set(now);
                        String s = m2.getUserProperty("idx");
                        int idx = s == null ? -1 : Integer.parseInt(s);
                        if (idx < 0 || idx >= count) {
                            st.unexpected.incrementAndGet();
                            continue;
                        }
                        int nth = st.deliveries.computeIfAbsent(idx, k -> new AtomicInteger()).incrementAndGet();
                        st.reconsumeTimes.computeIfAbsent(idx, k -> Collections.synchronizedList(new ArrayList<>()))
                            .add(m2.getReconsumeTimes());
                        boolean failNow = st.failing(idx, nth);
                        if (failNow) {
                            status = ConsumeConcurrentlyStatus.RECONSUME_LATER;
                        } else if (st.succeeded.putIfAbsent(idx, Boolean.TRUE) == null) {
                            st.latencies.add(now - m2.getBornTimestamp());
                        }
                        if (!quiet) {
                            Map<String, Object> o = new LinkedHashMap<>();
                            o.put("member", member);
                            Map<String, Object> mm = msg(m2);
                            mm.put("receivedAt", now);
                            mm.put("answer", failNow ? "RECONSUME_LATER" : "CONSUME_SUCCESS");
                            o.put("msg", mm);
                            Client5Probe.line(o);
                        }
                    }
                    return status;
                });
                c.start();
                if (f.containsKey("pop-delay-s")) {
                    // The POP push consumer retries after popDelayLevel[reconsumeTimes] seconds (10, 30, 60, ...);
                    // the array has no setter, so its elements are overwritten to keep a test short.
                    Method get = DefaultMQPushConsumerImpl.class.getDeclaredMethod("getPopDelayLevel");
                    get.setAccessible(true);
                    Arrays.fill((int[]) get.invoke(c.getDefaultMQPushConsumerImpl()), Integer.parseInt(f.get("pop-delay-s")));
                }
                consumers.add(c);
            }
            // Every member must hold its POP assignment (QUERY_ASSIGNMENT) before the sends.
            for (int m = 0; m < members; m++) {
                DefaultMQPushConsumer c = consumers.get(m);
                Set<MessageQueue> held;
                while ((held = c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getPopProcessQueueTable().keySet())
                    .isEmpty()) {
                    if (System.currentTimeMillis() > deadline) {
                        throw new IllegalStateException("member " + m + " got no POP assignment");
                    }
                    Thread.sleep(50);
                }
                List<Integer> qids = new ArrayList<>();
                for (MessageQueue mq : held) {
                    qids.add(mq.getQueueId());
                }
                Map<String, Object> o = new LinkedHashMap<>();
                o.put("member", m);
                o.put("assigned", qids);
                o.put("pullQueues", c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().size());
                Client5Probe.line(o);
            }
            long sendStart = System.currentTimeMillis();
            if (!backlog) {
                sendAll(producer, topic, count, intFlag(f, "senders", 1), deadline, out);
            }
            boolean others = f.containsKey("others");
            st.lastDelivery.compareAndSet(0, System.currentTimeMillis());
            boolean settled = false;
            while (System.currentTimeMillis() < deadline) {
                // --others: members outside this JVM share the group, so this one cannot see everything
                if (!settled && (others || st.settled())) {
                    settled = true;
                }
                if (settled && System.currentTimeMillis() - st.lastDelivery.get() >= quietMs) {
                    break;
                }
                Thread.sleep(20);
            }
            out.put("settled", settled);
            out.put("sendStart", sendStart);
            for (DefaultMQPushConsumer c : consumers) {
                c.shutdown();
            }
            consumers.clear();
            // What the broker holds in the group's DLQ (upstream POP has no DLQ step: see the report).
            String bn = producer.fetchPublishMessageQueues(topic).get(0).getBrokerName();
            try {
                out.put("dlqMaxOffset", producer.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl()
                    .getMaxOffset(brokerAddr, new MessageQueue("%DLQ%" + group, bn, 0), RPC_MS));
            } catch (MQBrokerException e) {
                out.put("dlqMaxOffset", "code " + e.getResponseCode());
            }
        } finally {
            for (DefaultMQPushConsumer c : consumers) {
                c.shutdown();
            }
            producer.shutdown();
        }
        int succeeded = st.succeeded.size();
        int redelivered = 0;
        int duplicatedSuccess = 0;
        Map<String, Object> retries = new TreeMap<>();
        for (Map.Entry<Integer, List<Integer>> e : st.reconsumeTimes.entrySet()) {
            if (e.getValue().size() > 1) {
                redelivered++;
                if (!st.failIdx.contains(e.getKey()) && !st.alwaysIdx.contains(e.getKey())) {
                    duplicatedSuccess++;
                }
            }
            if (st.failIdx.contains(e.getKey()) || st.alwaysIdx.contains(e.getKey())) {
                retries.put(String.valueOf(e.getKey()), new ArrayList<>(e.getValue()));
            }
        }
        List<Long> lat = new ArrayList<>(st.latencies);
        Collections.sort(lat);
        List<Integer> per = new ArrayList<>();
        for (AtomicInteger n : st.perMember) {
            per.add(n.get());
        }
        Map<String, Object> done = new LinkedHashMap<>(out);
        done.put("count", count);
        done.put("succeeded", succeeded);
        done.put("missing", count - st.deliveries.size());
        done.put("redelivered", redelivered);
        done.put("redeliveredNotFailed", duplicatedSuccess);
        done.put("unexpected", st.unexpected.get());
        done.put("perMember", per);
        done.put("retries", retries);
        done.put("firstDelivery", st.firstDelivery.get());
        done.put("lastDelivery", st.lastDelivery.get());
        done.put("latencyP50", lat.isEmpty() ? -1 : lat.get(lat.size() / 2));
        done.put("latencyP99", lat.isEmpty() ? -1 : lat.get(Math.min(lat.size() - 1, (int) (lat.size() * 0.99))));
        done.put("latencyMax", lat.isEmpty() ? -1 : lat.get(lat.size() - 1));
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("done", done);
        Client5Probe.line(o);
        return 0;
    }

    // ------------------------------------------------------------------------------------------
    // raw: header-level cases through MQClientAPIExt and its remoting client

    private static MQClientAPIExt api;
    private static String brokerAddr;
    private static String brokerName;

    private static Map<String, Object> rawCall(String name, int code, CommandCustomHeader h, byte[] body)
        throws Exception {
        RemotingCommand req = RemotingCommand.createRequestCommand(code, h);
        if (body != null) {
            req.setBody(body);
        }
        RemotingCommand r = api.getRemotingClient().invokeSync(brokerAddr, req, RPC_MS + 10_000);
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("case", name);
        o.put("code", r.getCode());
        o.put("remark", r.getRemark());
        o.put("header", r.getExtFields() == null ? new TreeMap<>() : new TreeMap<>(r.getExtFields()));
        List<Object> msgs = new ArrayList<>();
        if (code == RequestCode.POP_MESSAGE && r.getCode() == 0 && r.getBody() != null) {
            for (MessageExt m : MessageDecoder.decodesBatch(ByteBuffer.wrap(r.getBody()), true, false, true)) {
                msgs.add(msg(m));
            }
            o.put("msgs", msgs);
        }
        Client5Probe.line(o);
        return o;
    }

    private static PopMessageRequestHeader popHeader(String topic, String group, int queueId, int max, long invisible,
        long poll) {
        PopMessageRequestHeader h = new PopMessageRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(topic);
        h.setQueueId(queueId);
        h.setMaxMsgNums(max);
        h.setInvisibleTime(invisible);
        h.setPollTime(poll);
        h.setBornTime(System.currentTimeMillis());
        h.setInitMode(1);
        h.setExpType("TAG");
        h.setExp("*");
        return h;
    }

    private static AckMessageRequestHeader ackHeader(String topic, String group, int queueId, long offset, String extra) {
        AckMessageRequestHeader h = new AckMessageRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(topic);
        h.setQueueId(queueId);
        h.setOffset(offset);
        h.setExtraInfo(extra);
        return h;
    }

    private static Map<String, Object> failure(String name, Throwable e) {
        Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("case", name);
        if (c instanceof MQBrokerException) {
            o.put("code", ((MQBrokerException) c).getResponseCode());
            o.put("remark", ((MQBrokerException) c).getErrorMessage());
        } else {
            o.put("error", c.getClass().getSimpleName());
            o.put("remark", String.valueOf(c.getMessage()));
        }
        return o;
    }

    /** popMessageAsync: what the official client makes of the reply (its own handle parsing included). */
    private static List<MessageExt> apiPop(String name, PopMessageRequestHeader h) {
        Map<String, Object> o;
        List<MessageExt> found = new ArrayList<>();
        try {
            PopResult r = api.popMessageAsync(brokerAddr, brokerName, h, RPC_MS + h.getPollTime()).get();
            o = new LinkedHashMap<>();
            o.put("case", name);
            o.put("status", String.valueOf(r.getPopStatus()));
            o.put("popTime", r.getPopTime());
            o.put("invisibleTime", r.getInvisibleTime());
            o.put("restNum", r.getRestNum());
            List<Object> msgs = new ArrayList<>();
            if (r.getMsgFoundList() != null) {
                found.addAll(r.getMsgFoundList());
                for (MessageExt m : r.getMsgFoundList()) {
                    msgs.add(msg(m));
                }
            }
            o.put("msgs", msgs);
        } catch (Exception e) {
            o = failure(name, e);
        }
        Client5Probe.line(o);
        return found;
    }

    private static Map<String, Object> ackResult(String name, java.util.concurrent.CompletableFuture<AckResult> f) {
        Map<String, Object> o;
        try {
            AckResult r = f.get(RPC_MS + 5_000, TimeUnit.MILLISECONDS);
            o = new LinkedHashMap<>();
            o.put("case", name);
            o.put("status", String.valueOf(r.getStatus()));
            o.put("extraInfo", r.getExtraInfo());
            o.put("popTime", r.getPopTime());
        } catch (Exception e) {
            o = failure(name, e);
        }
        Client5Probe.line(o);
        return o;
    }

    private static void note(String name, Object value) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("case", name);
        o.put("value", value);
        Client5Probe.line(o);
    }

    private static int raw(List<String> p, Map<String, String> f) throws Exception {
        String namesrv = p.get(0);
        brokerAddr = p.get(1);
        brokerName = p.get(2);
        String topic = p.get(3);
        String group = p.get(4);
        long deadline = System.currentTimeMillis() + Long.parseLong(p.get(5));
        DefaultMQProducer producer = producer(namesrv, group + "_rp");
        ClientConfig cc = new ClientConfig();
        cc.setNamesrvAddr(namesrv);
        api = new MQClientAPIExt(cc, new NettyClientConfig(), new ClientRemotingProcessor(null), null);
        api.start();
        try {
            createTopic(producer, brokerAddr, topic, 2);
            String fifoTopic = topic + "_fifo";
            createTopic(producer, brokerAddr, fifoTopic, 1);
            String emptyTopic = topic + "_empty";
            createTopic(producer, brokerAddr, emptyTopic, 1);
            for (int i = 0; i < 4; i++) {
                Message m = new Message(topic, "TagA", "k-" + i, ("raw-" + i).getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("idx", Integer.toString(i));
                producer.send(m, new MessageQueue(topic, brokerName, i % 2), RPC_MS);
            }
            for (int i = 0; i < 3; i++) {
                Message m = new Message(fifoTopic, "TagF", "f-" + i, ("fifo-" + i).getBytes(StandardCharsets.UTF_8));
                m.putUserProperty("idx", Integer.toString(i));
                producer.send(m, new MessageQueue(fifoTopic, brokerName, 0), RPC_MS);
            }

            // --- bad requests first (nothing popped yet)
            rawCall("pop-unknown-topic", RequestCode.POP_MESSAGE,
                popHeader(topic + "_nope", group, -1, 1, 10_000, 0), null);
            rawCall("pop-queue-out-of-range", RequestCode.POP_MESSAGE, popHeader(topic, group, 9, 1, 10_000, 0), null);
            rawCall("pop-max-33", RequestCode.POP_MESSAGE, popHeader(topic, group, -1, 33, 10_000, 0), null);
            PopMessageRequestHeader skew = popHeader(topic, group, -1, 1, 10_000, 5_000);
            skew.setBornTime(System.currentTimeMillis() - 60_000);
            rawCall("pop-born-time-skew", RequestCode.POP_MESSAGE, skew, null);
            rawCall("pop-empty-poll", RequestCode.POP_MESSAGE, popHeader(emptyTopic, group, -1, 1, 10_000, 300), null);
            rawCall("pop-empty-no-poll", RequestCode.POP_MESSAGE, popHeader(emptyTopic, group, -1, 1, 10_000, 0), null);
            rawCall("pop-invisible-negative", RequestCode.POP_MESSAGE, popHeader(emptyTopic, group, -1, 1, -1, 0), null);
            rawCall("pop-invisible-huge", RequestCode.POP_MESSAGE,
                popHeader(emptyTopic, group, -1, 1, 10L * 24 * 3600 * 1000, 0), null);
            NotificationRequestHeader nEmpty = new NotificationRequestHeader();
            nEmpty.setConsumerGroup(group);
            nEmpty.setTopic(emptyTopic);
            nEmpty.setQueueId(-1);
            nEmpty.setPollTime(300);
            nEmpty.setBornTime(System.currentTimeMillis());
            rawCall("notification-empty", RequestCode.NOTIFICATION, nEmpty, null);
            NotificationRequestHeader nFull = new NotificationRequestHeader();
            nFull.setConsumerGroup(group);
            nFull.setTopic(topic);
            nFull.setQueueId(-1);
            nFull.setPollTime(300);
            nFull.setBornTime(System.currentTimeMillis());
            try {
                note("notification-api", api.notification(brokerAddr, nFull, RPC_MS).get());
            } catch (Exception e) {
                Client5Probe.line(failure("notification-api", e));
            }

            // --- normal pop, raw (headers) then through the client (its handle parsing)
            Map<String, Object> pop1 = rawCall("pop-raw-2", RequestCode.POP_MESSAGE,
                popHeader(topic, group, -1, 2, 20_000, 1_000), null);
            List<MessageExt> popped = apiPop("pop-api-rest",
                popHeader(topic, group, -1, 32, 20_000, 1_000));
            if (popped.size() < 2) {
                popped.addAll(apiPop("pop-api-rest-again", popHeader(topic, group, -1, 32, 20_000, 1_000)));
            }
            note("pop-total-distinct", countDistinct(pop1, popped));
            if (popped.size() >= 2) {
                MessageExt a = popped.get(0);
                MessageExt b = popped.get(1);
                String ha = a.getProperty(MessageConst.PROPERTY_POP_CK);
                String hb = b.getProperty(MessageConst.PROPERTY_POP_CK);
                ackResult("ack-api", api.ackMessageAsync(brokerAddr,
                    ackHeader(topic, group, a.getQueueId(), a.getQueueOffset(), ha), RPC_MS));
                ackResult("ack-api-twice", api.ackMessageAsync(brokerAddr,
                    ackHeader(topic, group, a.getQueueId(), a.getQueueOffset(), ha), RPC_MS));
                ChangeInvisibleTimeRequestHeader ch = new ChangeInvisibleTimeRequestHeader();
                ch.setConsumerGroup(group);
                ch.setTopic(topic);
                ch.setQueueId(b.getQueueId());
                ch.setOffset(b.getQueueOffset());
                ch.setExtraInfo(hb);
                ch.setInvisibleTime(30_000L);
                Map<String, Object> changed = ackResult("change-invisible-api",
                    api.changeInvisibleTimeAsync(brokerAddr, brokerName, ch, RPC_MS));
                String hb2 = (String) changed.get("extraInfo");
                note("change-invisible-new-handle-differs", hb2 != null && !hb2.equals(hb));
                ch.setExtraInfo(hb);
                ch.setInvisibleTime(-1L);
                rawCall("change-invisible-negative", RequestCode.CHANGE_MESSAGE_INVISIBLETIME, ch, null);
                List<String> handles = new ArrayList<>();
                handles.add(hb2 != null ? hb2 : hb);
                for (int i = 2; i < popped.size(); i++) {
                    handles.add(popped.get(i).getProperty(MessageConst.PROPERTY_POP_CK));
                }
                ackResult("batch-ack-api", api.batchAckMessageAsync(brokerAddr, topic, group, handles, RPC_MS));
                // forged and malformed handles: never an ack of anything
                rawCall("ack-malformed-handle", RequestCode.ACK_MESSAGE,
                    ackHeader(topic, group, a.getQueueId(), a.getQueueOffset(), "garbage"), null);
                rawCall("ack-empty-handle", RequestCode.ACK_MESSAGE,
                    ackHeader(topic, group, a.getQueueId(), a.getQueueOffset(), ""), null);
                rawCall("ack-unknown-topic", RequestCode.ACK_MESSAGE,
                    ackHeader(topic + "_nope", group, a.getQueueId(), a.getQueueOffset(), ha), null);
                rawCall("ack-queue-out-of-range", RequestCode.ACK_MESSAGE,
                    ackHeader(topic, group, 9, a.getQueueOffset(), ha), null);
                rawCall("ack-offset-out-of-range", RequestCode.ACK_MESSAGE,
                    ackHeader(topic, group, a.getQueueId(), 1_000_000L, ha), null);
                rawCall("ack-never-popped-group", RequestCode.ACK_MESSAGE,
                    ackHeader(topic, group + "_other", a.getQueueId(), a.getQueueOffset(), ha), null);
            }
            rawCall("pop-after-acks", RequestCode.POP_MESSAGE, popHeader(topic, group, -1, 32, 20_000, 0), null);

            // --- FIFO: order=true with attemptId; the queue stays blocked until the popped message is acked
            PopMessageRequestHeader f1 = popHeader(fifoTopic, group, -1, 1, 20_000, 0);
            f1.setOrder(true);
            f1.setAttemptId("attempt-1");
            Map<String, Object> fifo1 = rawCall("fifo-pop-1", RequestCode.POP_MESSAGE, f1, null);
            PopMessageRequestHeader f2 = popHeader(fifoTopic, group, -1, 1, 20_000, 0);
            f2.setOrder(true);
            f2.setAttemptId("attempt-2");
            rawCall("fifo-pop-blocked-other-attempt", RequestCode.POP_MESSAGE, f2, null);
            f1.setBornTime(System.currentTimeMillis());
            rawCall("fifo-pop-same-attempt", RequestCode.POP_MESSAGE, f1, null);
            List<MessageExt> fifoApi = new ArrayList<>();
            Object fifoMsgs = fifo1.get("msgs");
            if (fifoMsgs instanceof List && !((List<?>) fifoMsgs).isEmpty()) {
                // ack through the client: pop again via the client with the same attempt to get its handle
                PopMessageRequestHeader f3 = popHeader(fifoTopic, group, -1, 1, 20_000, 0);
                f3.setOrder(true);
                f3.setAttemptId("attempt-1");
                fifoApi = apiPop("fifo-pop-api-same-attempt", f3);
            }
            if (!fifoApi.isEmpty()) {
                MessageExt m = fifoApi.get(0);
                ackResult("fifo-ack-api", api.ackMessageAsync(brokerAddr,
                    ackHeader(fifoTopic, group, m.getQueueId(), m.getQueueOffset(),
                        m.getProperty(MessageConst.PROPERTY_POP_CK)), RPC_MS));
            }
            PopMessageRequestHeader f4 = popHeader(fifoTopic, group, -1, 1, 20_000, 0);
            f4.setOrder(true);
            f4.setAttemptId("attempt-3");
            rawCall("fifo-pop-after-ack", RequestCode.POP_MESSAGE, f4, null);
            // a well-formed handle for an offset this group never popped (offset 2 of the FIFO queue)
            rawCall("ack-forged-never-popped", RequestCode.ACK_MESSAGE, ackHeader(fifoTopic, group, 0, 2L,
                "2 " + System.currentTimeMillis() + " 20000 0 0 " + brokerName + " 0 2"), null);

            // --- revive: popped, not acked, invisible 2 s -> comes back with reconsumeTimes 1
            String reviveTopic = topic + "_revive";
            createTopic(producer, brokerAddr, reviveTopic, 1);
            Message rm = new Message(reviveTopic, "TagR", "r-0", "revive-0".getBytes(StandardCharsets.UTF_8));
            rm.putUserProperty("idx", "0");
            producer.send(rm, RPC_MS);
            long firstUntil = System.currentTimeMillis() + 10_000;
            MessageExt first = null;
            while (first == null && System.currentTimeMillis() < firstUntil) {
                // the store may dispatch the message a moment after the send returned
                List<MessageExt> got = apiPop("revive-pop-first", popHeader(reviveTopic, group, -1, 1, 2_000, 1_000));
                first = got.isEmpty() ? null : got.get(0);
            }
            long reviveStart = System.currentTimeMillis();
            Map<String, Object> back = null;
            while (System.currentTimeMillis() < Math.min(deadline, reviveStart + 30_000)) {
                Map<String, Object> r = rawCall("revive-pop-again", RequestCode.POP_MESSAGE,
                    popHeader(reviveTopic, group, -1, 1, 60_000, 1_000), null);
                if (r.get("msgs") instanceof List && !((List<?>) r.get("msgs")).isEmpty()) {
                    back = r;
                    break;
                }
                Thread.sleep(200);
            }
            note("revive-back-after-ms", back == null ? -1 : System.currentTimeMillis() - reviveStart);
            if (first != null) {
                // the first pop's handle after its invisible time ended and the message came back
                rawCall("ack-expired-handle", RequestCode.ACK_MESSAGE, ackHeader(reviveTopic, group,
                    first.getQueueId(), first.getQueueOffset(), first.getProperty(MessageConst.PROPERTY_POP_CK)), null);
            }
        } finally {
            api.shutdown();
            producer.shutdown();
        }
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("done", true);
        Client5Probe.line(o);
        return 0;
    }

    private static int countDistinct(Map<String, Object> raw, List<MessageExt> api) {
        Set<String> ids = new HashSet<>();
        Object msgs = raw.get("msgs");
        if (msgs instanceof List) {
            for (Object m : (List<?>) msgs) {
                ids.add(String.valueOf(((Map<?, ?>) m).get("uniqKey")));
            }
        }
        for (MessageExt m : api) {
            ids.add(m.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX));
        }
        return ids.size();
    }
}
