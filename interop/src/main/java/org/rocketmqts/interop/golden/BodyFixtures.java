package org.rocketmqts.interop.golden;

import com.alibaba.fastjson.serializer.SerializerFeature;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.broker.offset.ConsumerOffsetManager;
import org.apache.rocketmq.client.consumer.store.OffsetSerializeWrapper;
import org.apache.rocketmq.common.DataVersion;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.TopicFilterType;
import org.apache.rocketmq.common.admin.ConsumeStats;
import org.apache.rocketmq.common.admin.OffsetWrapper;
import org.apache.rocketmq.common.admin.TopicOffset;
import org.apache.rocketmq.common.admin.TopicStatsTable;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.filter.FilterAPI;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.message.MessageQueueForC;
import org.apache.rocketmq.common.protocol.body.BrokerStatsData;
import org.apache.rocketmq.common.protocol.body.BrokerStatsItem;
import org.apache.rocketmq.common.protocol.body.CMResult;
import org.apache.rocketmq.common.protocol.body.ClusterInfo;
import org.apache.rocketmq.common.protocol.body.Connection;
import org.apache.rocketmq.common.protocol.body.ConsumeMessageDirectlyResult;
import org.apache.rocketmq.common.protocol.body.ConsumeStatsList;
import org.apache.rocketmq.common.protocol.body.ConsumeStatus;
import org.apache.rocketmq.common.protocol.body.ConsumerConnection;
import org.apache.rocketmq.common.protocol.body.ConsumerOffsetSerializeWrapper;
import org.apache.rocketmq.common.protocol.body.ConsumerRunningInfo;
import org.apache.rocketmq.common.protocol.body.GetConsumerStatusBody;
import org.apache.rocketmq.common.protocol.body.GroupList;
import org.apache.rocketmq.common.protocol.body.KVTable;
import org.apache.rocketmq.common.protocol.body.LockBatchRequestBody;
import org.apache.rocketmq.common.protocol.body.ProcessQueueInfo;
import org.apache.rocketmq.common.protocol.body.RegisterBrokerBody;
import org.apache.rocketmq.common.protocol.body.ResetOffsetBody;
import org.apache.rocketmq.common.protocol.body.ResetOffsetBodyForC;
import org.apache.rocketmq.common.protocol.body.TopicConfigSerializeWrapper;
import org.apache.rocketmq.common.protocol.body.TopicList;
import org.apache.rocketmq.common.protocol.heartbeat.ConsumeType;
import org.apache.rocketmq.common.protocol.heartbeat.ConsumerData;
import org.apache.rocketmq.common.protocol.heartbeat.HeartbeatData;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.common.protocol.heartbeat.ProducerData;
import org.apache.rocketmq.common.protocol.heartbeat.SubscriptionData;
import org.apache.rocketmq.common.protocol.route.BrokerData;
import org.apache.rocketmq.common.protocol.route.QueueData;
import org.apache.rocketmq.common.protocol.route.TopicRouteData;
import org.apache.rocketmq.common.subscription.SubscriptionGroupConfig;
import org.apache.rocketmq.remoting.protocol.LanguageCode;
import org.apache.rocketmq.remoting.protocol.RemotingSerializable;
import org.rocketmqts.interop.Hex;

/**
 * JSON bodies exactly as fastjson 1.2.69 writes them through the official beans: the default
 * (bare non-String map keys) form, the standard form the 4.9.4+ name server uses for routes, and
 * the pretty form of the broker's consumerOffset.json. Every set in these beans holds at most one
 * element whose class lacks hashCode (Connection, ConsumerData, ProducerData), so the order is stable.
 */
final class BodyFixtures {
    private final Out out;
    private final List<Object> entries = new ArrayList<>();

    BodyFixtures(Out out) {
        this.out = out;
    }

    static SubscriptionData subscription(String topic, String expr) throws Exception {
        SubscriptionData sd = FilterAPI.buildSubscriptionData(topic, expr);
        sd.setSubVersion(1700000000000L);
        return sd;
    }

    static HeartbeatData heartbeat() throws Exception {
        HeartbeatData hb = new HeartbeatData();
        hb.setClientID("127.0.0.1@4242#1234567890");
        ConsumerData cd = new ConsumerData();
        cd.setGroupName("cg-golden");
        cd.setConsumeType(ConsumeType.CONSUME_PASSIVELY);
        cd.setMessageModel(MessageModel.CLUSTERING);
        cd.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET);
        cd.getSubscriptionDataSet().add(subscription("TopicTest", "TagA || TagB"));
        cd.getSubscriptionDataSet().add(subscription("%RETRY%cg-golden", "*"));
        cd.setUnitMode(false);
        hb.getConsumerDataSet().add(cd);
        ProducerData pd = new ProducerData();
        pd.setGroupName("pg-golden");
        hb.getProducerDataSet().add(pd);
        return hb;
    }

    /** The runtime-info keys a 4.9.8 broker without transient store pool or delay levels in use reports. */
    static final String[] RUNTIME_INFO_KEYS = {
        "bootTimestamp", "runtime", "putMessageEntireTimeMax", "putMessageTimesTotal", "putMessageFailedTimes",
        "putMessageSizeTotal", "putMessageDistributeTime", "putMessageAverageSize", "dispatchMaxBuffer",
        "getMessageEntireTimeMax", "putTps", "getFoundTps", "getMissTps", "getTotalTps", "getTransferedTps",
        "putLatency99", "putLatency999", "commitLogDiskRatio_/tmp/store/commitlog", "commitLogDiskRatio",
        "consumeQueueDiskRatio", "commitLogMinOffset", "commitLogMaxOffset", "brokerVersionDesc", "brokerVersion",
        "msgPutTotalYesterdayMorning", "msgPutTotalTodayMorning", "msgPutTotalTodayNow",
        "msgGetTotalYesterdayMorning", "msgGetTotalTodayMorning", "msgGetTotalTodayNow",
        "sendThreadPoolQueueSize", "sendThreadPoolQueueCapacity", "pullThreadPoolQueueSize",
        "pullThreadPoolQueueCapacity", "queryThreadPoolQueueSize", "queryThreadPoolQueueCapacity",
        "EndTransactionQueueSize", "EndTransactionThreadPoolQueueCapacity", "dispatchBehindBytes",
        "pageCacheLockTimeMills", "sendThreadPoolQueueHeadWaitTimeMills", "pullThreadPoolQueueHeadWaitTimeMills",
        "queryThreadPoolQueueHeadWaitTimeMills", "earliestMessageTimeStamp", "startAcceptSendRequestTimeStamp",
        "remainTransientStoreBufferNumbs", "remainHowManyDataToFlush", "commitLogDirCapacity",
    };

    static BrokerStatsItem statsItem(long sum, double tps, double avgpt) {
        BrokerStatsItem it = new BrokerStatsItem();
        it.setSum(sum);
        it.setTps(tps);
        it.setAvgpt(avgpt);
        return it;
    }

    static MessageQueue mq(String topic, String broker, int q) {
        return new MessageQueue(topic, broker, q);
    }

    static TopicRouteData route() {
        TopicRouteData r = new TopicRouteData();
        List<QueueData> qds = new ArrayList<>();
        for (String b : new String[] {"broker-a", "broker-b"}) {
            QueueData q = new QueueData();
            q.setBrokerName(b);
            q.setReadQueueNums(4);
            q.setWriteQueueNums(4);
            q.setPerm(6);
            q.setTopicSysFlag(0);
            qds.add(q);
        }
        r.setQueueDatas(qds);
        List<BrokerData> bds = new ArrayList<>();
        HashMap<Long, String> a = new HashMap<>();
        a.put(0L, "127.0.0.1:10911");
        a.put(1L, "127.0.0.2:10911");
        bds.add(new BrokerData("DefaultCluster", "broker-a", a));
        HashMap<Long, String> b = new HashMap<>();
        b.put(0L, "127.0.0.3:10911");
        b.put(1L, "127.0.0.4:10911");
        bds.add(new BrokerData("DefaultCluster", "broker-b", b));
        r.setBrokerDatas(bds);
        r.setFilterServerTable(new HashMap<String, List<String>>());
        r.setOrderTopicConf("broker-a:4;broker-b:4");
        return r;
    }

    static TopicConfigSerializeWrapper topicConfigs() {
        ConcurrentMap<String, TopicConfig> table = new ConcurrentHashMap<>();
        TopicConfig t1 = new TopicConfig("TopicTest", 4, 4, 6);
        TopicConfig t2 = new TopicConfig("TopicOrder", 8, 8, 6);
        t2.setOrder(true);
        t2.setTopicFilterType(TopicFilterType.MULTI_TAG);
        t2.setTopicSysFlag(1);
        table.put(t1.getTopicName(), t1);
        table.put(t2.getTopicName(), t2);
        TopicConfigSerializeWrapper w = new TopicConfigSerializeWrapper();
        w.setTopicConfigTable(table);
        DataVersion dv = new DataVersion();
        dv.setTimestamp(1700000000789L);
        dv.setCounter(new AtomicLong(7));
        w.setDataVersion(dv);
        return w;
    }

    List<Object> run() throws Exception {
        TopicRouteData route = route();
        add("topic-route.default", route.encode(), route,
            "RemotingSerializable.encode (bare Long keys in brokerAddrs): the reply to requests with version < 401",
            "2 QueueData (broker-a, broker-b: 4/4 queues, perm 6, topicSysFlag 0); 2 BrokerData in DefaultCluster "
                + "with brokerAddrs {0: 127.0.0.x:10911 master, 1: slave}; empty filterServerTable; "
                + "orderTopicConf broker-a:4;broker-b:4");
        add("topic-route.standard", route.encode(SerializerFeature.BrowserCompatible, SerializerFeature.QuoteFieldNames,
            SerializerFeature.SkipTransientField, SerializerFeature.MapSortField), route,
            "encode(BrowserCompatible, QuoteFieldNames, SkipTransientField, MapSortField): what the 4.9.8 name "
                + "server sends when request.version >= 401 or acceptStandardJsonOnly=true",
            "same route as topic-route.default");

        ClusterInfo ci = new ClusterInfo();
        HashMap<String, BrokerData> bat = new HashMap<>();
        for (BrokerData bd : route.getBrokerDatas()) {
            bat.put(bd.getBrokerName(), bd);
        }
        ci.setBrokerAddrTable(bat);
        HashMap<String, Set<String>> cat = new HashMap<>();
        cat.put("DefaultCluster", new HashSet<>(Arrays.asList("broker-a", "broker-b")));
        ci.setClusterAddrTable(cat);
        add("cluster-info", ci.encode(), ci, "RemotingSerializable.encode (GET_BROKER_CLUSTER_INFO)",
            "brokerAddrTable: the two BrokerData of the route; clusterAddrTable: DefaultCluster -> {broker-a, broker-b}");

        TopicList tl = new TopicList();
        tl.setTopicList(new HashSet<>(Arrays.asList("TopicTest", "TopicOrder", "%RETRY%cg-golden", "TBW102")));
        add("topic-list", tl.encode(), tl, "RemotingSerializable.encode",
            "topicList: TopicTest, TopicOrder, %RETRY%cg-golden, TBW102; brokerAddr null (left out)");
        TopicList tl2 = new TopicList();
        tl2.setTopicList(new HashSet<>(Arrays.asList("TopicTest")));
        tl2.setBrokerAddr("127.0.0.1:10911");
        add("topic-list.with-broker-addr", tl2.encode(), tl2, "RemotingSerializable.encode",
            "topicList: TopicTest; brokerAddr 127.0.0.1:10911");

        GroupList gl = new GroupList();
        gl.setGroupList(new HashSet<>(Arrays.asList("cg-golden", "cg-other")));
        add("group-list", gl.encode(), gl, "RemotingSerializable.encode", "groupList: cg-golden, cg-other");

        KVTable kv = new KVTable();
        HashMap<String, String> t = new HashMap<>();
        t.put("broker-a", "4");
        t.put("brokerVersionDesc", "V4_9_8");
        t.put("note", "naïve \"quoted\" \\ 订单");
        kv.setTable(t);
        add("kv-table", kv.encode(), kv, "RemotingSerializable.encode",
            "table: broker-a=4, brokerVersionDesc=V4_9_8, note=naïve \"quoted\" \\ 订单 (escapes and non-ASCII)");

        ConsumeStats cs = new ConsumeStats();
        for (int q = 0; q < 2; q++) {
            OffsetWrapper ow = new OffsetWrapper();
            ow.setBrokerOffset(120L + q);
            ow.setConsumerOffset(118L + q);
            ow.setLastTimestamp(1700000000000L + q);
            cs.getOffsetTable().put(mq("TopicTest", "broker-a", q), ow);
        }
        cs.setConsumeTps(12.5d);
        add("consume-stats", cs.encode(), cs,
            "RemotingSerializable.encode: MessageQueue keys become bare JSON object keys",
            "offsetTable: {TopicTest/broker-a/0: broker 120 consumer 118 last 1700000000000, "
                + "TopicTest/broker-a/1: 121/119/1700000000001}; consumeTps 12.5");

        // AdminBrokerProcessor.fetchAllConsumeStatsInBroker: one single-entry HashMap per group, the
        // group's ConsumeStats per topic (none for a group without offsets), the broker's total diff.
        ConsumeStatsList csl = new ConsumeStatsList();
        csl.setBrokerAddr("127.0.0.1:10911");
        Map<String, List<ConsumeStats>> golden = new HashMap<>();
        golden.put("cg-golden", new ArrayList<>(Arrays.asList(cs)));
        Map<String, List<ConsumeStats>> other = new HashMap<>();
        other.put("cg-other", new ArrayList<ConsumeStats>());
        csl.getConsumeStatsList().add(golden);
        csl.getConsumeStatsList().add(other);
        csl.setTotalDiff(cs.computeTotalDiff());
        add("consume-stats-list", csl.encode(), csl,
            "RemotingSerializable.encode: a List of HashMap<String, List<ConsumeStats>>",
            "brokerAddr 127.0.0.1:10911; consumeStatsList: [{cg-golden: [the consume-stats fixture]}, "
                + "{cg-other: []}]; totalDiff 4");

        TopicStatsTable ts = new TopicStatsTable();
        HashMap<MessageQueue, TopicOffset> tot = new HashMap<>();
        for (int q = 0; q < 2; q++) {
            TopicOffset to = new TopicOffset();
            to.setMinOffset(q);
            to.setMaxOffset(1000L + q);
            to.setLastUpdateTimestamp(1700000000000L + q);
            tot.put(mq("TopicTest", "broker-a", q), to);
        }
        ts.setOffsetTable(tot);
        add("topic-stats-table", ts.encode(), ts,
            "RemotingSerializable.encode: MessageQueue keys become bare JSON object keys",
            "offsetTable: {TopicTest/broker-a/0: min 0 max 1000, TopicTest/broker-a/1: min 1 max 1001}");

        // Enough queues that the HashMap resizes (13th put) and buckets hold several keys.
        ConsumeStats many = new ConsumeStats();
        for (String topic : new String[] {"TopicTest", "TopicOrder"}) {
            for (int q = 0; q < 8; q++) {
                OffsetWrapper ow = new OffsetWrapper();
                ow.setBrokerOffset(1000L * q + 7);
                ow.setConsumerOffset(1000L * q);
                ow.setLastTimestamp(q == 0 ? 0L : 1700000000000L + q);
                many.getOffsetTable().put(mq(topic, "broker-a", q), ow);
            }
        }
        many.setConsumeTps(1.0d / 3);
        add("consume-stats.many", many.encode(), many,
            "RemotingSerializable.encode: 16 MessageQueue keys put TopicTest/0..7 then TopicOrder/0..7",
            "offsetTable: {<topic>/broker-a/q: broker 1000q+7 consumer 1000q last (q == 0 ? 0 : 1700000000000+q)} "
                + "for TopicTest then TopicOrder, q 0..7; consumeTps 1/3");

        // Broker2Client.resetOffset: a HashMap filled queue 0..3, the body pushed to Java clients and
        // answered to the admin; C++ clients get the same table as a list in that map's iteration order.
        Map<MessageQueue, Long> reset = new HashMap<>();
        long[] resetOffsets = {0L, 57L, 9007199254740993L, 118L};
        for (int q = 0; q < resetOffsets.length; q++) {
            reset.put(mq("TopicTest", "broker-a", q), resetOffsets[q]);
        }
        ResetOffsetBody rob = new ResetOffsetBody();
        rob.setOffsetTable(reset);
        add("reset-offset-body", rob.encode(), rob,
            "RemotingSerializable.encode: MessageQueue keys become bare JSON object keys",
            "offsetTable: {TopicTest/broker-a/0: 0, /1: 57, /2: 9007199254740993, /3: 118} put in queue order");
        List<MessageQueueForC> forC = new ArrayList<>();
        for (Map.Entry<MessageQueue, Long> e : reset.entrySet()) {
            MessageQueue q = e.getKey();
            forC.add(new MessageQueueForC(q.getTopic(), q.getBrokerName(), q.getQueueId(), e.getValue()));
        }
        ResetOffsetBodyForC robc = new ResetOffsetBodyForC();
        robc.setOffsetTable(forC);
        add("reset-offset-body-for-c", robc.encode(), robc,
            "RemotingSerializable.encode of Broker2Client.convertOffsetTable2OffsetList(reset-offset-body's map)",
            "offsetTable: [MessageQueueForC topic/brokerName/queueId/offset] in that HashMap's iteration order");

        // GET_CONSUMER_STATUS_FROM_CLIENT: the client answers its offsets in messageQueueTable; the
        // broker answers INVOKE_BROKER_TO_GET_CONSUMER_STATUS with them per clientId in consumerTable.
        GetConsumerStatusBody fromClient = new GetConsumerStatusBody();
        for (int q = 0; q < 3; q++) {
            fromClient.getMessageQueueTable().put(mq("TopicTest", "broker-a", q), 100L + q);
        }
        add("get-consumer-status-body.client", fromClient.encode(), fromClient,
            "RemotingSerializable.encode (ClientRemotingProcessor.getConsumeStatus)",
            "messageQueueTable: {TopicTest/broker-a/0: 100, /1: 101, /2: 102}; consumerTable: {}");
        GetConsumerStatusBody aggregated = new GetConsumerStatusBody();
        Map<String, Map<MessageQueue, Long>> byClient = new HashMap<>();
        Map<MessageQueue, Long> c1 = new HashMap<>();
        c1.put(mq("TopicTest", "broker-a", 0), 100L);
        c1.put(mq("TopicTest", "broker-a", 1), 101L);
        byClient.put("127.0.0.1@4242#1234567890", c1);
        Map<MessageQueue, Long> c2 = new HashMap<>();
        c2.put(mq("TopicTest", "broker-a", 2), 9007199254740993L);
        byClient.put("127.0.0.2@4243#1234567891", c2);
        aggregated.setConsumerTable(byClient);
        add("get-consumer-status-body.broker", aggregated.encode(), aggregated,
            "RemotingSerializable.encode (Broker2Client.getConsumeStatus)",
            "consumerTable: {127.0.0.1@4242#1234567890: {TopicTest/broker-a/0: 100, /1: 101}, "
                + "127.0.0.2@4243#1234567891: {TopicTest/broker-a/2: 9007199254740993}}; messageQueueTable: {}");

        BrokerStatsData bsd = new BrokerStatsData();
        bsd.setStatsMinute(statsItem(120L, 2.0d, 1.5d));
        bsd.setStatsHour(statsItem(7200L, 1.0d / 3, 0.0d));
        bsd.setStatsDay(statsItem(9007199254740993L, 1.0E-4d, 12345678.9d));
        add("broker-stats-data", bsd.encode(), bsd, "RemotingSerializable.encode",
            "statsMinute: sum 120 tps 2.0 avgpt 1.5; statsHour: sum 7200 tps 1/3 avgpt 0.0; "
                + "statsDay: sum 9007199254740993 tps 1.0E-4 avgpt 12345678.9");

        // GET_BROKER_RUNTIME_INFO: StoreStatsService.getRuntimeInfo's new HashMap<>(64), filled by it,
        // DefaultMessageStore.getRuntimeInfo and AdminBrokerProcessor.prepareRuntimeInfo in that order.
        HashMap<String, String> runtime = new HashMap<>(64);
        for (int i = 0; i < RUNTIME_INFO_KEYS.length; i++) {
            runtime.put(RUNTIME_INFO_KEYS[i], Integer.toString(i));
        }
        KVTable rt = new KVTable();
        rt.setTable(runtime);
        add("kv-table.runtime-info", rt.encode(), rt, "RemotingSerializable.encode of a new HashMap<>(64)",
            "table: the " + RUNTIME_INFO_KEYS.length + " runtime-info keys put in the order "
                + String.join(",", RUNTIME_INFO_KEYS) + "; each value is its put index");

        ConcurrentMap<String, ConcurrentMap<Integer, Long>> offsets = new ConcurrentHashMap<>();
        ConcurrentMap<Integer, Long> g1 = new ConcurrentHashMap<>();
        g1.put(0, 118L);
        g1.put(1, 57L);
        g1.put(3, 9007199254740993L);
        offsets.put("TopicTest@cg-golden", g1);
        ConcurrentMap<Integer, Long> g2 = new ConcurrentHashMap<>();
        g2.put(0, 0L);
        offsets.put("%RETRY%cg-golden@cg-golden", g2);
        ConsumerOffsetSerializeWrapper cow = new ConsumerOffsetSerializeWrapper();
        cow.setOffsetTable(offsets);
        add("consumer-offset-wrapper", cow.encode(), cow,
            "ConsumerOffsetSerializeWrapper RemotingSerializable.encode: Integer keys are bare numbers",
            "offsetTable: TopicTest@cg-golden -> {0:118, 1:57, 3:9007199254740993}; %RETRY%cg-golden@cg-golden -> {0:0}");
        ConsumerOffsetManager com = new ConsumerOffsetManager();
        com.setOffsetTable(new ConcurrentHashMap<>(offsets));
        add("consumerOffset.pretty", com.encode(true).getBytes(StandardCharsets.UTF_8), com,
            "ConsumerOffsetManager.encode(true) = RemotingSerializable.toJson(this, true): the broker's "
                + "config/consumerOffset.json (pretty, tab-indented)",
            "same offsets as consumer-offset-wrapper");
        add("consumerOffset.compact", com.encode().getBytes(StandardCharsets.UTF_8), com,
            "ConsumerOffsetManager.encode() (compact)", "same offsets as consumer-offset-wrapper");

        // LocalFileOffsetStore.persistAll writes MixAll.string2File(wrapper.toJson(true), path): the
        // broadcasting consumer's <dir>/<clientId>/<group>/offsets.json.
        OffsetSerializeWrapper osw = new OffsetSerializeWrapper();
        osw.getOffsetTable().put(mq("TopicTest", "broker-a", 0), new AtomicLong(118L));
        osw.getOffsetTable().put(mq("TopicTest", "broker-a", 1), new AtomicLong(0L));
        osw.getOffsetTable().put(mq("TopicTest", "broker-a", 2), new AtomicLong(9007199254740993L));
        osw.getOffsetTable().put(mq("TopicTest", "broker-b", 0), new AtomicLong(57L));
        osw.getOffsetTable().put(mq("TopicOrder", "broker-a", 3), new AtomicLong(3L));
        String oswContent = "offsetTable: {TopicTest/broker-a/0: 118, TopicTest/broker-a/1: 0, "
            + "TopicTest/broker-a/2: 9007199254740993, TopicTest/broker-b/0: 57, TopicOrder/broker-a/3: 3} put in that order";
        add("offset-serialize-wrapper.pretty", osw.toJson(true).getBytes(StandardCharsets.UTF_8), osw,
            "OffsetSerializeWrapper.toJson(true): the offsets.json LocalFileOffsetStore writes (pretty, tab-indented)",
            oswContent);
        add("offset-serialize-wrapper", osw.encode(), osw, "OffsetSerializeWrapper RemotingSerializable.encode (compact)",
            oswContent);

        HeartbeatData hb = heartbeat();
        add("heartbeat", hb.encode(), hb, "RemotingSerializable.encode (HEART_BEAT body)",
            "clientID 127.0.0.1@4242#1234567890; one consumer cg-golden (CONSUME_PASSIVELY, CLUSTERING, "
                + "CONSUME_FROM_LAST_OFFSET) subscribed to TopicTest 'TagA || TagB' and %RETRY%cg-golden '*', "
                + "subVersion 1700000000000; one producer pg-golden");

        LockBatchRequestBody lock = new LockBatchRequestBody();
        lock.setConsumerGroup("cg-golden");
        lock.setClientId("127.0.0.1@4242#1234567890");
        lock.setMqSet(new HashSet<>(Arrays.asList(mq("TopicTest", "broker-a", 0), mq("TopicTest", "broker-a", 1))));
        add("lock-batch-request", lock.encode(), lock, "RemotingSerializable.encode",
            "consumerGroup cg-golden, clientId 127.0.0.1@4242#1234567890, mqSet TopicTest/broker-a/0 and /1");

        TopicConfigSerializeWrapper tcw = topicConfigs();
        add("topic-config-wrapper", tcw.encode(), tcw, "RemotingSerializable.encode",
            "TopicTest 4/4 perm 6 SINGLE_TAG; TopicOrder 8/8 perm 6 MULTI_TAG order=true topicSysFlag 1; "
                + "dataVersion counter 7 timestamp 1700000000789");

        RegisterBrokerBody rbb = new RegisterBrokerBody();
        rbb.setTopicConfigSerializeWrapper(tcw);
        rbb.setFilterServerList(new ArrayList<>(Arrays.asList("127.0.0.1:30000")));
        add("register-broker-body", rbb.encode(false), rbb,
            "RegisterBrokerBody.encode(false): the default uncompressed REGISTER_BROKER body",
            "topicConfigSerializeWrapper as topic-config-wrapper; filterServerList [127.0.0.1:30000]");
        byte[] compressed = rbb.encode(true);
        String cfile = out.write("bodies/register-broker-body.compressed.bin", compressed);
        Map<String, Object> ce = new LinkedHashMap<>();
        ce.put("name", "register-broker-body.compressed");
        ce.put("file", cfile);
        ce.put("javaClass", RegisterBrokerBody.class.getName());
        ce.put("method", "RegisterBrokerBody.encode(true): zlib (BEST_COMPRESSION) of the binary layout; "
            + "decode with RegisterBrokerBody.decode(bytes, true)");
        ce.put("content", "same as register-broker-body");
        RegisterBrokerBody back = RegisterBrokerBody.decode(compressed, true);
        ce.put("decodedTopics", new ArrayList<>(new java.util.TreeSet<>(
            back.getTopicConfigSerializeWrapper().getTopicConfigTable().keySet())));
        ce.put("length", compressed.length);
        entries.add(ce);

        SubscriptionGroupConfig sgc = new SubscriptionGroupConfig();
        sgc.setGroupName("cg-golden");
        add("subscription-group-config.defaults", RemotingSerializable.encode(sgc), sgc,
            "RemotingSerializable.encode(config) as MQClientAPIImpl.createSubscriptionGroup sends it", "groupName cg-golden, everything else at its default");
        SubscriptionGroupConfig sgc2 = new SubscriptionGroupConfig();
        sgc2.setGroupName("cg-custom");
        sgc2.setConsumeBroadcastEnable(false);
        sgc2.setRetryMaxTimes(3);
        sgc2.setRetryQueueNums(2);
        sgc2.setBrokerId(1);
        sgc2.setWhichBrokerWhenConsumeSlowly(2);
        sgc2.setNotifyConsumerIdsChangedEnable(false);
        add("subscription-group-config.custom", RemotingSerializable.encode(sgc2), sgc2,
            "RemotingSerializable.encode", "cg-custom: consumeBroadcastEnable false, retryMaxTimes 3, "
                + "retryQueueNums 2, brokerId 1, whichBrokerWhenConsumeSlowly 2, notifyConsumerIdsChangedEnable false");

        ConsumerConnection cc = new ConsumerConnection();
        Connection c = new Connection();
        c.setClientId("127.0.0.1@4242#1234567890");
        c.setClientAddr("127.0.0.1:53211");
        c.setLanguage(LanguageCode.JAVA);
        c.setVersion(409);
        cc.getConnectionSet().add(c);
        cc.getSubscriptionTable().put("TopicTest", subscription("TopicTest", "TagA || TagB"));
        cc.setConsumeType(ConsumeType.CONSUME_PASSIVELY);
        cc.setMessageModel(MessageModel.CLUSTERING);
        cc.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        add("consumer-connection", cc.encode(), cc, "RemotingSerializable.encode",
            "one JAVA 409 connection 127.0.0.1:53211; subscriptionTable TopicTest 'TagA || TagB'; "
                + "CONSUME_PASSIVELY, CLUSTERING, CONSUME_FROM_FIRST_OFFSET");
        consumerRunningBodies();
        return entries;
    }

    /**
     * The settings DefaultMQPushConsumerImpl.consumerRunningInfo puts through MixAll.object2Properties
     * (DefaultMQPushConsumer's own fields, with deterministic values in place of the object ones), then
     * the PROP_ keys it and MQClientInstance.consumerRunningInfo add, in that put order.
     */
    static final String[][] RUNNING_INFO_PROPERTIES = {
        {"consumerGroup", "cg-golden"}, {"messageModel", "CLUSTERING"},
        {"consumeFromWhere", "CONSUME_FROM_LAST_OFFSET"}, {"consumeTimestamp", "20231114215320"},
        {"allocateMessageQueueStrategy", "AVG"}, {"subscription", "{}"},
        {"consumeThreadMin", "20"}, {"consumeThreadMax", "20"}, {"adjustThreadPoolNumsThreshold", "100000"},
        {"consumeConcurrentlyMaxSpan", "2000"}, {"pullThresholdForQueue", "1000"},
        {"pullThresholdSizeForQueue", "100"}, {"pullThresholdForTopic", "-1"}, {"pullThresholdSizeForTopic", "-1"},
        {"pullInterval", "0"}, {"consumeMessageBatchMaxSize", "1"}, {"pullBatchSize", "32"},
        {"postSubscriptionWhenPull", "false"}, {"unitMode", "false"}, {"maxReconsumeTimes", "-1"},
        {"suspendCurrentQueueTimeMillis", "1000"}, {"consumeTimeout", "15"},
        {"awaitTerminationMillisWhenShutdown", "0"},
        {ConsumerRunningInfo.PROP_CONSUME_ORDERLY, "false"}, {ConsumerRunningInfo.PROP_THREADPOOL_CORE_SIZE, "20"},
        {ConsumerRunningInfo.PROP_CONSUMER_START_TIMESTAMP, "1700000000000"},
        {ConsumerRunningInfo.PROP_NAMESERVER_ADDR, "127.0.0.1:9876;127.0.0.2:9876;"},
        {ConsumerRunningInfo.PROP_CONSUME_TYPE, "CONSUME_PASSIVELY"}, {ConsumerRunningInfo.PROP_CLIENT_VERSION, "V4_9_8"},
    };

    static ConsumeStatus consumeStatus(double pullRT, double pullTPS, double consumeRT, double okTps, double failedTps,
        long failedMsgs) {
        ConsumeStatus cs = new ConsumeStatus();
        cs.setPullRT(pullRT);
        cs.setPullTPS(pullTPS);
        cs.setConsumeRT(consumeRT);
        cs.setConsumeOKTPS(okTps);
        cs.setConsumeFailedTPS(failedTps);
        cs.setConsumeFailedMsgs(failedMsgs);
        return cs;
    }

    /** ProcessQueueInfo with every field set from `base` so each queue's values differ. */
    static ProcessQueueInfo processQueueInfo(long base, boolean locked, boolean dropped) {
        ProcessQueueInfo p = new ProcessQueueInfo();
        p.setCommitOffset(base);
        p.setCachedMsgMinOffset(base + 1);
        p.setCachedMsgMaxOffset(base + 32);
        p.setCachedMsgCount(32);
        p.setCachedMsgSizeInMiB(3);
        p.setTransactionMsgMinOffset(base + 1);
        p.setTransactionMsgMaxOffset(base + 4);
        p.setTransactionMsgCount(4);
        p.setLocked(locked);
        p.setTryUnlockTimes(2);
        p.setLastLockTimestamp(1700000000100L);
        p.setDroped(dropped);
        p.setLastPullTimestamp(1700000000200L);
        p.setLastConsumeTimestamp(1700000000300L);
        return p;
    }

    /**
     * GET_CONSUMER_RUNNING_INFO and CONSUME_MESSAGE_DIRECTLY answers (ConsumerRunningInfo with its
     * ProcessQueueInfo and ConsumeStatus, ConsumeMessageDirectlyResult), as a 4.9.8 push consumer writes them.
     */
    private void consumerRunningBodies() throws Exception {
        ConsumeStatus cs = consumeStatus(1.5d, 1.0d / 3, 12345678.9d, 2.0d, 1.0E-4d, 9007199254740993L);
        add("consume-status", RemotingSerializable.encode(cs), cs, "RemotingSerializable.encode",
            "pullRT 1.5, pullTPS 1/3, consumeRT 12345678.9, consumeOKTPS 2.0, consumeFailedTPS 1.0E-4, "
                + "consumeFailedMsgs 9007199254740993");
        ConsumeStatus zero = new ConsumeStatus();
        add("consume-status.zero", RemotingSerializable.encode(zero), zero, "RemotingSerializable.encode",
            "new ConsumeStatus(): every figure 0");

        ProcessQueueInfo pqi = processQueueInfo(9007199254740993L, true, true);
        add("process-queue-info", RemotingSerializable.encode(pqi), pqi, "RemotingSerializable.encode",
            "commitOffset 9007199254740993, cachedMsgMin/MaxOffset +1/+32, cachedMsgCount 32, cachedMsgSizeInMiB 3, "
                + "transactionMsgMin/MaxOffset +1/+4, transactionMsgCount 4, locked true, tryUnlockTimes 2, "
                + "lastLockTimestamp 1700000000100, droped true, lastPullTimestamp 1700000000200, "
                + "lastConsumeTimestamp 1700000000300");

        ConsumerRunningInfo info = new ConsumerRunningInfo();
        Properties props = new Properties();
        for (String[] kv : RUNNING_INFO_PROPERTIES) {
            props.setProperty(kv[0], kv[1]);
        }
        info.setProperties(props);
        info.getSubscriptionSet().add(subscription("TopicTest", "TagA || TagB"));
        info.getSubscriptionSet().add(subscription("%RETRY%cg-golden", "*"));
        info.getSubscriptionSet().add(subscription("TopicOrder", "*"));
        info.getMqTable().put(mq("TopicTest", "broker-b", 1), processQueueInfo(200L, false, false));
        info.getMqTable().put(mq("TopicTest", "broker-a", 10), processQueueInfo(110L, false, false));
        info.getMqTable().put(mq("TopicTest", "broker-a", 2), processQueueInfo(102L, true, false));
        info.getMqTable().put(mq("%RETRY%cg-golden", "broker-a", 0), new ProcessQueueInfo());
        info.getMqTable().put(mq("TopicOrder", "broker-a", 0), processQueueInfo(0L, true, true));
        info.getStatusTable().put("TopicTest", cs);
        info.getStatusTable().put("%RETRY%cg-golden", zero);
        info.getStatusTable().put("TopicOrder", consumeStatus(0.5d, 10.0d, 3.25d, 10.0d, 0.0d, 0L));
        add("consumer-running-info", info.encode(), info,
            "RemotingSerializable.encode (GET_CONSUMER_RUNNING_INFO answer, jstack not asked for)",
            "properties: the " + RUNNING_INFO_PROPERTIES.length + " keys put in the order "
                + String.join(",", keys(RUNNING_INFO_PROPERTIES)) + " (values in BodyFixtures."
                + "RUNNING_INFO_PROPERTIES); subscriptionSet: TopicTest 'TagA || TagB', %RETRY%cg-golden '*', "
                + "TopicOrder '*' (subVersion 1700000000000); mqTable put TopicTest/broker-b/1 (base 200), "
                + "TopicTest/broker-a/10 (110), TopicTest/broker-a/2 (102, locked), %RETRY%cg-golden/broker-a/0 "
                + "(new ProcessQueueInfo()), TopicOrder/broker-a/0 (0, locked, droped) as the process-queue-info "
                + "fixture with that base; statusTable: TopicTest the consume-status fixture, %RETRY%cg-golden "
                + "zero, TopicOrder pullRT 0.5 pullTPS 10.0 consumeRT 3.25 consumeOKTPS 10.0 failed 0.0/0");
        // Properties iterate in the order of the ConcurrentHashMap inside them (JDK 9+), which depends
        // on the order of the puts, so a reparsed bean can list them otherwise: compare them as maps.
        ConsumerRunningInfo back = RemotingSerializable.decode(info.encode(), ConsumerRunningInfo.class);
        boolean sameProperties = back.getProperties().equals(info.getProperties());
        back.setProperties(info.getProperties());
        @SuppressWarnings("unchecked")
        Map<String, Object> last = (Map<String, Object>) entries.get(entries.size() - 1);
        last.put("reparsedEqualsBean", sameProperties && Arrays.equals(back.encode(), info.encode()));
        last.put("propertiesOrder", "java.util.Properties iteration order (a ConcurrentHashMap's, JDK 9+), not the put "
            + "order; reparsedEqualsBean compares the properties as maps");

        ConsumerRunningInfo empty = new ConsumerRunningInfo();
        add("consumer-running-info.empty", empty.encode(), empty, "RemotingSerializable.encode",
            "new ConsumerRunningInfo(): empty properties, subscriptionSet, mqTable and statusTable; jstack null");

        ConsumerRunningInfo withStack = new ConsumerRunningInfo();
        withStack.getProperties().setProperty(ConsumerRunningInfo.PROP_CONSUME_TYPE, "CONSUME_PASSIVELY");
        withStack.setJstack("\"main\" Id=1 RUNNABLE\n\tat Main.run(Main.java:7)\n");
        add("consumer-running-info.jstack", withStack.encode(), withStack,
            "RemotingSerializable.encode (jstackEnable: ClientRemotingProcessor sets jstack)",
            "properties {PROP_CONSUME_TYPE: CONSUME_PASSIVELY}; jstack \"main\" Id=1 RUNNABLE<LF><TAB>at "
                + "Main.run(Main.java:7)<LF>");

        ConsumeMessageDirectlyResult cmdr = new ConsumeMessageDirectlyResult();
        cmdr.setConsumeResult(CMResult.CR_SUCCESS);
        cmdr.setSpentTimeMills(12L);
        add("consume-message-directly-result", cmdr.encode(), cmdr,
            "RemotingSerializable.encode (ConsumeMessageConcurrentlyService.consumeMessageDirectly)",
            "order false, autoCommit true, consumeResult CR_SUCCESS, remark null, spentTimeMills 12");
        ConsumeMessageDirectlyResult thrown = new ConsumeMessageDirectlyResult();
        thrown.setOrder(true);
        thrown.setAutoCommit(false);
        thrown.setConsumeResult(CMResult.CR_THROW_EXCEPTION);
        thrown.setRemark("java.lang.IllegalStateException: bad \"order\" 订单");
        thrown.setSpentTimeMills(9007199254740993L);
        add("consume-message-directly-result.thrown", thrown.encode(), thrown,
            "RemotingSerializable.encode (ConsumeMessageOrderlyService.consumeMessageDirectly, listener threw)",
            "order true, autoCommit false, consumeResult CR_THROW_EXCEPTION, remark "
                + "java.lang.IllegalStateException: bad \"order\" 订单, spentTimeMills 9007199254740993");
        ConsumeMessageDirectlyResult fresh = new ConsumeMessageDirectlyResult();
        add("consume-message-directly-result.empty", fresh.encode(), fresh, "RemotingSerializable.encode",
            "new ConsumeMessageDirectlyResult(): order false, autoCommit true, consumeResult and remark null, "
                + "spentTimeMills 0");
    }

    private static List<String> keys(String[][] pairs) {
        List<String> out = new ArrayList<>();
        for (String[] kv : pairs) {
            out.add(kv[0]);
        }
        return out;
    }

    private void add(String name, byte[] bytes, Object bean, String method, String content) throws Exception {
        Class<?> cls = bean.getClass();
        String file = out.write("bodies/" + name + ".json", bytes);
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", name);
        e.put("file", file);
        e.put("javaClass", cls.getName());
        e.put("method", method);
        e.put("content", content);
        e.put("length", bytes.length);
        e.put("sha256", sha256(bytes));
        // fastjson must read these bytes (bare keys included) back into an equal bean.
        Object back = RemotingSerializable.decode(bytes, cls);
        e.put("reparsedEqualsBean", Arrays.equals(RemotingSerializable.encode(back), RemotingSerializable.encode(bean)));
        entries.add(e);
    }

    static String sha256(byte[] bytes) throws Exception {
        return Hex.of(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
