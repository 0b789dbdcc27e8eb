package org.rocketmqts.interop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.protocol.body.ClusterInfo;
import org.apache.rocketmq.common.protocol.body.KVTable;
import org.apache.rocketmq.common.protocol.route.BrokerData;
import org.apache.rocketmq.common.protocol.route.QueueData;
import org.apache.rocketmq.common.protocol.route.TopicRouteData;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * Drives the official 4.9.8 client classes against a name server (ours, in the interop tests) and
 * prints one JSON line with what they saw.
 *
 * <pre>
 * OfficialClientsProbe roundtrip &lt;namesrvAddr&gt; &lt;topic&gt; &lt;count&gt; &lt;timeoutMs&gt;
 *     DefaultMQProducer sends count messages (sync) to topic, which need not exist (auto-created through
 *     TBW102); then a DefaultMQPushConsumer of a new group reads from the first offset until it has
 *     every body or timeoutMs passed. Prints {"sent":[..],"received":[..],"sendMs":..,"consumeMs":..,
 *     "complete":bool}; exit 0 when every send was SEND_OK and every body came back.
 * OfficialClientsProbe admin &lt;namesrvAddr&gt; &lt;clusterName&gt; &lt;brokerName&gt;
 *     DefaultMQAdminExt calls to the name server, each reported as {"ok":..,"value":..} or
 *     {"ok":false,"code":..,"error":..}. Prints {"steps":{..}}; exit 0.
 * </pre>
 * Exit 64 on bad arguments, 2 when a client cannot start.
 */
public final class OfficialClientsProbe {
    private OfficialClientsProbe() {
    }

    public static void main(String[] args) {
        int exit;
        try {
            if (args.length == 5 && "roundtrip".equals(args[0])) {
                exit = roundtrip(args[1], args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]));
            } else if (args.length == 4 && "admin".equals(args[0])) {
                exit = admin(args[1], args[2], args[3]);
            } else {
                System.err.println("usage: OfficialClientsProbe roundtrip <namesrv> <topic> <count> <timeoutMs>");
                System.err.println("       OfficialClientsProbe admin <namesrv> <clusterName> <brokerName>");
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
        // Client threads are not daemons; exit explicitly.
        System.exit(exit);
    }

    private static String instanceName(String role) {
        return role + "-" + ProcessHandleHolder.pid();
    }

    private static int roundtrip(String namesrv, String topic, int count, long timeoutMs) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("pg_" + topic);
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName(instanceName("producer"));
        producer.setSendMsgTimeout(10_000);
        long sendStart = System.nanoTime();
        producer.start();
        List<Object> sent = new ArrayList<>();
        boolean allOk = true;
        try {
            for (int i = 0; i < count; i++) {
                Message msg = new Message(topic, "TagA", "key-" + i, ("body-" + i).getBytes(StandardCharsets.UTF_8));
                msg.putUserProperty("idx", Integer.toString(i));
                SendResult r = producer.send(msg);
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("status", r.getSendStatus().name());
                m.put("brokerName", r.getMessageQueue().getBrokerName());
                m.put("queueId", r.getMessageQueue().getQueueId());
                m.put("queueOffset", Long.toString(r.getQueueOffset()));
                m.put("msgId", r.getMsgId());
                m.put("offsetMsgId", r.getOffsetMsgId());
                sent.add(m);
                allOk &= r.getSendStatus().name().equals("SEND_OK");
            }
        } finally {
            producer.shutdown();
        }
        long sendMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sendStart);

        final Map<String, Map<String, Object>> received = new ConcurrentHashMap<>();
        final CountDownLatch all = new CountDownLatch(count);
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("cg_" + topic);
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName(instanceName("consumer"));
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
            for (MessageExt m : msgs) {
                Map<String, Object> r = new LinkedHashMap<>();
                r.put("body", new String(m.getBody(), StandardCharsets.UTF_8));
                r.put("tags", m.getTags());
                r.put("keys", m.getKeys());
                r.put("idx", m.getUserProperty("idx"));
                r.put("queueId", m.getQueueId());
                r.put("msgId", m.getMsgId());
                if (received.putIfAbsent((String) r.get("body"), r) == null) {
                    all.countDown();
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        long consumeStart = System.nanoTime();
        consumer.start();
        boolean complete;
        try {
            complete = all.await(timeoutMs, TimeUnit.MILLISECONDS);
        } finally {
            consumer.shutdown();
        }
        long consumeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - consumeStart);

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("sent", sent);
        out.put("received", new ArrayList<Object>(new TreeMap<>(received).values()));
        out.put("sendMs", sendMs);
        out.put("consumeMs", consumeMs);
        out.put("complete", complete);
        ProbeOutput.line(out);
        return allOk && complete ? 0 : 1;
    }

    private interface Step {
        Object run() throws Exception;
    }

    private static void step(Map<String, Object> steps, String name, Step body) {
        Map<String, Object> r = new LinkedHashMap<>();
        try {
            r.put("ok", true);
            r.put("value", body.run());
        } catch (MQClientException e) {
            r.put("ok", false);
            r.put("code", e.getResponseCode());
            r.put("error", String.valueOf(e.getErrorMessage()));
        } catch (Exception e) {
            r.put("ok", false);
            r.put("code", -1);
            r.put("error", e.getClass().getName() + ": " + e.getMessage());
        }
        steps.put(name, r);
    }

    private static Map<String, Object> brokerData(BrokerData b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cluster", b.getCluster());
        m.put("brokerName", b.getBrokerName());
        Map<String, Object> addrs = new TreeMap<>();
        for (Map.Entry<Long, String> e : b.getBrokerAddrs().entrySet()) {
            addrs.put(e.getKey().toString(), e.getValue());
        }
        m.put("brokerAddrs", addrs);
        return m;
    }

    private static Map<String, Object> route(TopicRouteData route) {
        Map<String, Object> m = new LinkedHashMap<>();
        List<Object> brokers = new ArrayList<>();
        for (BrokerData b : route.getBrokerDatas()) {
            brokers.add(brokerData(b));
        }
        List<Object> queues = new ArrayList<>();
        for (QueueData q : route.getQueueDatas()) {
            Map<String, Object> qm = new LinkedHashMap<>();
            qm.put("brokerName", q.getBrokerName());
            qm.put("readQueueNums", q.getReadQueueNums());
            qm.put("writeQueueNums", q.getWriteQueueNums());
            qm.put("perm", q.getPerm());
            qm.put("topicSysFlag", q.getTopicSysFlag());
            queues.add(qm);
        }
        m.put("brokerDatas", brokers);
        m.put("queueDatas", queues);
        m.put("orderTopicConf", route.getOrderTopicConf());
        return m;
    }

    private static Map<String, Object> stringMap(Map<?, ?> source) {
        Map<String, Object> m = new TreeMap<>();
        for (Map.Entry<?, ?> e : source.entrySet()) {
            m.put(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
        }
        return m;
    }

    private static int admin(final String namesrv, final String cluster, final String brokerName) throws Exception {
        final DefaultMQAdminExt admin = new DefaultMQAdminExt(10_000);
        admin.setNamesrvAddr(namesrv);
        admin.setInstanceName(instanceName("admin"));
        admin.start();
        final List<String> namesrvs = Collections.singletonList(namesrv);
        Map<String, Object> steps = new LinkedHashMap<>();
        try {
            step(steps, "clusterInfo", () -> {
                ClusterInfo info = admin.examineBrokerClusterInfo();
                Map<String, Object> m = new LinkedHashMap<>();
                Map<String, Object> brokers = new TreeMap<>();
                for (Map.Entry<String, BrokerData> e : info.getBrokerAddrTable().entrySet()) {
                    brokers.put(e.getKey(), brokerData(e.getValue()));
                }
                Map<String, Object> clusters = new TreeMap<>();
                for (Map.Entry<String, java.util.Set<String>> e : info.getClusterAddrTable().entrySet()) {
                    clusters.put(e.getKey(), new ArrayList<Object>(new TreeSet<>(e.getValue())));
                }
                m.put("brokerAddrTable", brokers);
                m.put("clusterAddrTable", clusters);
                return m;
            });
            step(steps, "routeTBW102", () -> route(admin.examineTopicRouteInfo("TBW102")));
            step(steps, "routeUnknown", () -> route(admin.examineTopicRouteInfo("NoSuchTopic_probe")));
            step(steps, "allTopics", () -> new ArrayList<Object>(new TreeSet<>(admin.fetchAllTopicList().getTopicList())));
            step(steps, "topicsByCluster",
                () -> new ArrayList<Object>(new TreeSet<>(admin.fetchTopicsByCLuster(cluster).getTopicList())));
            step(steps, "kvPut", () -> {
                admin.createAndUpdateKvConfig("probe_ns", "probe_key", "probe value ü");
                return "done";
            });
            step(steps, "kvGet", () -> admin.getKVConfig("probe_ns", "probe_key"));
            step(steps, "kvList", () -> {
                KVTable t = admin.getKVListByNamespace("probe_ns");
                return stringMap(t.getTable());
            });
            step(steps, "kvDelete", () -> {
                admin.deleteKvConfig("probe_ns", "probe_key");
                return "done";
            });
            step(steps, "kvGetDeleted", () -> admin.getKVConfig("probe_ns", "probe_key"));
            step(steps, "namesrvConfig", () -> {
                Map<String, Properties> all = admin.getNameServerConfig(namesrvs);
                Properties p = all.get(namesrv);
                return p == null ? null : stringMap(p);
            });
            step(steps, "updateAllowed", () -> {
                Properties p = new Properties();
                p.setProperty("productEnvName", "probe-env");
                admin.updateNameServerConfig(p, namesrvs);
                return "done";
            });
            step(steps, "updateForbidden", () -> {
                Properties p = new Properties();
                p.setProperty("configStorePath", "/tmp/rocketmq-ts-probe-should-not-exist");
                admin.updateNameServerConfig(p, namesrvs);
                return "done";
            });
            step(steps, "wipeWritePerm", () -> admin.wipeWritePermOfBroker(namesrv, brokerName));
            step(steps, "routeAfterWipe", () -> route(admin.examineTopicRouteInfo("TBW102")));
            step(steps, "addWritePerm", () -> admin.addWritePermOfBroker(namesrv, brokerName));
            step(steps, "routeAfterAdd", () -> route(admin.examineTopicRouteInfo("TBW102")));
        } finally {
            admin.shutdown();
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("steps", steps);
        ProbeOutput.line(out);
        return 0;
    }

    /** The pid for unique client instance names (Java 8 has no ProcessHandle). */
    private static final class ProcessHandleHolder {
        private ProcessHandleHolder() {
        }

        static String pid() {
            String name = java.lang.management.ManagementFactory.getRuntimeMXBean().getName();
            int at = name.indexOf('@');
            return at > 0 ? name.substring(0, at) : Long.toString(System.nanoTime());
        }
    }
}
