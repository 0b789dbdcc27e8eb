package org.rocketmqts.interop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.client.QueryResult;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.PlainAccessConfig;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.filter.FilterAPI;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.protocol.RequestCode;
import org.apache.rocketmq.common.protocol.header.ConsumerSendMsgBackRequestHeader;
import org.apache.rocketmq.common.protocol.header.GetConsumerListByGroupRequestHeader;
import org.apache.rocketmq.common.protocol.header.PullMessageRequestHeader;
import org.apache.rocketmq.common.protocol.header.QueryConsumerOffsetRequestHeader;
import org.apache.rocketmq.common.protocol.header.QueryMessageRequestHeader;
import org.apache.rocketmq.common.protocol.header.SendMessageRequestHeader;
import org.apache.rocketmq.common.protocol.header.SendMessageRequestHeaderV2;
import org.apache.rocketmq.common.protocol.header.UnregisterClientRequestHeader;
import org.apache.rocketmq.common.protocol.header.UpdateConsumerOffsetRequestHeader;
import org.apache.rocketmq.common.protocol.heartbeat.ConsumeType;
import org.apache.rocketmq.common.protocol.heartbeat.ConsumerData;
import org.apache.rocketmq.common.protocol.heartbeat.HeartbeatData;
import org.apache.rocketmq.common.protocol.heartbeat.MessageModel;
import org.apache.rocketmq.common.protocol.heartbeat.ProducerData;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.remoting.RPCHook;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * The official 4.9.8 client signing with {@code AclClientRPCHook} (plain ACL), for the ACL interop
 * tests: what a broker with {@code aclEnable=true} answers to allowed and denied requests, as the
 * official client sees it.
 *
 * <pre>
 * AclProbe produce &lt;namesrv&gt; &lt;ak:sk&gt; &lt;topic&gt; &lt;count&gt;
 *     one line per sent message: {"status","msgId","queueId","queueOffset"}; exit 2 on a failure
 * AclProbe consume &lt;namesrv&gt; &lt;ak:sk&gt; &lt;topic&gt; &lt;group&gt; &lt;count&gt; &lt;timeoutMs&gt;
 *     push consumer from the first offset: {"ready":true} after start, {"msg":{"msgId","body"}} per
 *     delivery, {"done":true,"distinct":n} when count distinct ids arrived (exit 0) or at the timeout (exit 1)
 * AclProbe matrix &lt;namesrv&gt; &lt;brokerAddr&gt; --admin ak:sk --allowed ak:sk --sub-only ak:sk
 *                --outside-white ak:sk --white ak:sk --topic t --deny-topic t --group g --allowed-group g
 *     one line per case: {"case","ok",...outcome}; see {@link #matrix}
 * </pre>
 *
 * An outcome is either {"ok":true,...} or {"ok":false,"code","remark","error","message","clientCode",
 * "causes"}: `code`/`remark` are the broker's answer (the raw response, else the first
 * MQBrokerException in the cause chain, else the first MQClientException with a code, which is how
 * admin calls report it), `error`/`message` the exception the application got, `clientCode` its
 * MQClientException response code when it is one, `causes` the cause chain.
 */
public final class AclProbe {
    private static final long TIMEOUT_MS = 10_000;

    private AclProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: AclProbe produce|consume|matrix ...");
            System.exit(64);
        }
        int exit;
        try {
            if (args[0].equals("produce")) {
                exit = produce(args);
            } else if (args[0].equals("consume")) {
                exit = consume(args);
            } else if (args[0].equals("matrix")) {
                exit = matrix(args);
            } else {
                System.err.println("unknown command " + args[0]);
                exit = 64;
            }
        } catch (Throwable t) {
            t.printStackTrace();
            exit = 2;
        }
        System.exit(exit);
    }

    // -------------------------------------------------------------------------------------------
    // helpers

    private static String option(String[] args, String name) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        throw new IllegalArgumentException("missing " + name);
    }

    /** "ak:sk" (the secret may itself hold ':'). */
    static RPCHook hook(String credentials) {
        int colon = credentials.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("credentials must be ak:sk, got " + credentials);
        }
        return new AclClientRPCHook(new SessionCredentials(credentials.substring(0, colon),
            credentials.substring(colon + 1)));
    }

    static String accessKey(String credentials) {
        return credentials.substring(0, credentials.indexOf(':'));
    }

    static void print(Map<String, Object> line) {
        synchronized (System.out) {
            System.out.println(Json.compact(line));
            System.out.flush();
        }
    }

    /**
     * Every client in one JVM shares an MQClientInstance per instance name, and that instance keeps
     * the RPC hook of the first client that created it; a distinct name per case keeps the hooks apart.
     */
    static DefaultMQProducer producer(String namesrv, RPCHook hook, String name, int retries) {
        DefaultMQProducer p = hook == null ? new DefaultMQProducer("acl_pg_" + name)
            : new DefaultMQProducer("acl_pg_" + name, hook);
        p.setNamesrvAddr(namesrv);
        p.setInstanceName("acl-" + name);
        p.setSendMsgTimeout((int) TIMEOUT_MS);
        p.setRetryTimesWhenSendFailed(retries);
        return p;
    }

    static DefaultMQAdminExt adminExt(String namesrv, RPCHook hook, String name) {
        DefaultMQAdminExt a = new DefaultMQAdminExt(hook, TIMEOUT_MS);
        a.setNamesrvAddr(namesrv);
        a.setInstanceName("acl-admin-" + name);
        a.setAdminExtGroup("acl_admin_" + name);
        return a;
    }

    static Message message(String topic, String body) {
        return new Message(topic, "TagA", body.getBytes(StandardCharsets.UTF_8));
    }

    static Map<String, Object> success(Map<String, Object> extra) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", true);
        if (extra != null) {
            m.putAll(extra);
        }
        return m;
    }

    static Map<String, Object> sendResult(SendResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", r.getSendStatus().name());
        m.put("msgId", r.getMsgId());
        m.put("queueId", r.getMessageQueue().getQueueId());
        m.put("queueOffset", String.valueOf(r.getQueueOffset()));
        return m;
    }

    /** The broker's answer hidden in an exception, plus what the application was told. */
    static Map<String, Object> failure(Throwable t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", false);
        Integer code = null;
        String remark = null;
        List<String> causes = new ArrayList<>();
        for (Throwable c = t.getCause(); c != null && causes.size() < 8; c = c.getCause() == c ? null : c.getCause()) {
            causes.add(c.getClass().getName() + ": " + c.getMessage());
        }
        // the broker's answer: a send wraps it in MQBrokerException, admin calls (MQClientAPIImpl)
        // throw MQClientException(code, remark); the outer MQClientExceptions of the producer and
        // MQAdminImpl carry -1 or a copy of the inner code with their own text
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof MQBrokerException) {
                code = ((MQBrokerException) c).getResponseCode();
                remark = ((MQBrokerException) c).getErrorMessage();
                break;
            }
        }
        if (code == null) {
            for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
                if (c instanceof MQClientException && ((MQClientException) c).getResponseCode() != -1) {
                    code = ((MQClientException) c).getResponseCode();
                    remark = ((MQClientException) c).getErrorMessage();
                    break;
                }
            }
        }
        m.put("code", code);
        m.put("remark", remark);
        m.put("error", t.getClass().getName());
        m.put("message", t.getMessage());
        if (t instanceof MQClientException) {
            m.put("clientCode", ((MQClientException) t).getResponseCode());
            m.put("clientErrorMessage", ((MQClientException) t).getErrorMessage());
        }
        m.put("causes", causes);
        return m;
    }

    static Map<String, Object> response(RemotingCommand r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", r.getCode() == 0);
        m.put("code", r.getCode());
        m.put("remark", r.getRemark());
        return m;
    }

    interface Case {
        Map<String, Object> run() throws Exception;
    }

    static void runCase(String name, Case c) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("case", name);
        long start = System.currentTimeMillis();
        try {
            line.putAll(c.run());
        } catch (Throwable t) {
            line.putAll(failure(t));
        }
        line.put("ms", System.currentTimeMillis() - start);
        print(line);
    }

    // -------------------------------------------------------------------------------------------
    // produce / consume

    static int produce(String[] args) throws Exception {
        String namesrv = args[1];
        String topic = args[3];
        int count = Integer.parseInt(args[4]);
        DefaultMQProducer p = producer(namesrv, hook(args[2]), "produce", 2);
        p.start();
        try {
            for (int i = 0; i < count; i++) {
                print(sendResult(p.send(message(topic, "acl-body-" + i))));
            }
        } finally {
            p.shutdown();
        }
        return 0;
    }

    static int consume(String[] args) throws Exception {
        String namesrv = args[1];
        String topic = args[3];
        String group = args[4];
        int count = Integer.parseInt(args[5]);
        long timeoutMs = Long.parseLong(args[6]);
        Set<String> distinct = ConcurrentHashMap.newKeySet();
        CountDownLatch reached = new CountDownLatch(1);
        DefaultMQPushConsumer c = new DefaultMQPushConsumer(group, hook(args[2]), new AllocateMessageQueueAveragely());
        c.setNamesrvAddr(namesrv);
        c.setInstanceName("acl-consume");
        c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        // short periods so that a topic created just before the start is picked up at once
        c.setPollNameServerInterval(1000);
        c.setHeartbeatBrokerInterval(1000);
        c.subscribe(topic, "*");
        c.registerMessageListener((MessageListenerConcurrently) (msgs, ctx) -> {
            for (MessageExt m : msgs) {
                Map<String, Object> msg = new LinkedHashMap<>();
                msg.put("msgId", m.getMsgId());
                msg.put("queueId", m.getQueueId());
                msg.put("body", new String(m.getBody(), StandardCharsets.UTF_8));
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("msg", msg);
                print(line);
                distinct.add(m.getMsgId());
            }
            if (distinct.size() >= count) {
                reached.countDown();
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        c.start();
        Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("ready", true);
        print(ready);
        boolean ok = reached.await(timeoutMs, TimeUnit.MILLISECONDS);
        Map<String, Object> done = new LinkedHashMap<>();
        done.put("done", true);
        done.put("reached", ok);
        done.put("distinct", distinct.size());
        print(done);
        c.shutdown();
        return ok ? 0 : 1;
    }

    // -------------------------------------------------------------------------------------------
    // the denial matrix

    /** Sends one request on a bare NettyRemotingClient (optionally signed) and reports the raw answer. */
    static Map<String, Object> raw(String addr, RPCHook hook, RemotingCommand request) throws Exception {
        NettyRemotingClient client = new NettyRemotingClient(new NettyClientConfig());
        if (hook != null) {
            client.registerRPCHook(hook);
        }
        client.start();
        try {
            return response(client.invokeSync(addr, request, TIMEOUT_MS));
        } finally {
            client.shutdown();
        }
    }

    static Map<String, Object> send(String namesrv, RPCHook hook, String name, int retries, String topic)
        throws Exception {
        DefaultMQProducer p = producer(namesrv, hook, name, retries);
        p.start();
        try {
            return success(sendResult(p.send(message(topic, "matrix-" + name))));
        } finally {
            p.shutdown();
        }
    }

    static SendMessageRequestHeader sendHeader(String group, String topic) {
        SendMessageRequestHeader h = new SendMessageRequestHeader();
        h.setProducerGroup(group);
        h.setTopic(topic);
        h.setDefaultTopic(TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC);
        h.setDefaultTopicQueueNums(4);
        h.setQueueId(0);
        h.setSysFlag(0);
        h.setBornTimestamp(System.currentTimeMillis());
        h.setFlag(0);
        Map<String, String> props = new HashMap<>();
        props.put("TAGS", "TagA");
        h.setProperties(MessageDecoder.messageProperties2String(props));
        h.setReconsumeTimes(0);
        h.setUnitMode(false);
        h.setBatch(false);
        return h;
    }

    static RemotingCommand queryRequest(String topic, String key, String uniqueFlag) {
        QueryMessageRequestHeader h = new QueryMessageRequestHeader();
        h.setTopic(topic);
        h.setKey(key);
        h.setMaxNum(32);
        h.setBeginTimestamp(0L);
        h.setEndTimestamp(Long.MAX_VALUE);
        RemotingCommand r = RemotingCommand.createRequestCommand(RequestCode.QUERY_MESSAGE, h);
        if (uniqueFlag != null) {
            r.addExtField(MixAll.UNIQUE_MSG_QUERY_FLAG, uniqueFlag);
        }
        return r;
    }

    static RemotingCommand pullRequest(String topic, String group) {
        PullMessageRequestHeader h = new PullMessageRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(topic);
        h.setQueueId(0);
        h.setQueueOffset(0L);
        h.setMaxMsgNums(1);
        h.setSysFlag(0);
        h.setCommitOffset(0L);
        // a pull that passed the ACL would be held this long when there is nothing to read
        h.setSuspendTimeoutMillis(0L);
        h.setSubscription("*");
        h.setSubVersion(0L);
        h.setExpressionType("TAG");
        return RemotingCommand.createRequestCommand(RequestCode.PULL_MESSAGE, h);
    }

    static RemotingCommand heartbeat(String consumerGroup, String topic) throws Exception {
        HeartbeatData hb = new HeartbeatData();
        hb.setClientID("127.0.0.1@acl-probe-heartbeat");
        if (consumerGroup == null) {
            ProducerData pd = new ProducerData();
            pd.setGroupName("acl_pg_heartbeat");
            hb.getProducerDataSet().add(pd);
        } else {
            ConsumerData cd = new ConsumerData();
            cd.setGroupName(consumerGroup);
            cd.setConsumeType(ConsumeType.CONSUME_PASSIVELY);
            cd.setMessageModel(MessageModel.CLUSTERING);
            cd.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
            cd.getSubscriptionDataSet().add(FilterAPI.buildSubscriptionData(topic, "*"));
            hb.getConsumerDataSet().add(cd);
        }
        RemotingCommand r = RemotingCommand.createRequestCommand(RequestCode.HEART_BEAT, null);
        r.setBody(hb.encode());
        return r;
    }

    static RemotingCommand updateOffset(String topic, String group) {
        UpdateConsumerOffsetRequestHeader h = new UpdateConsumerOffsetRequestHeader();
        h.setConsumerGroup(group);
        h.setTopic(topic);
        h.setQueueId(0);
        h.setCommitOffset(0L);
        return RemotingCommand.createRequestCommand(RequestCode.UPDATE_CONSUMER_OFFSET, h);
    }

    /**
     * Cases, in this order (each prints one line; `ok` tells whether the broker accepted):
     * sendAllowed, produceForQuery, wrongSecret, wrongSecretDefaultRetries, unknownAccessKey,
     * unknownAccessKeyDefaultRetries, denyTopic, subOnlySend, unsignedSend, nonAdminUpdateTopic,
     * nonAdminCreateTopic, adminUpdateTopic, nonAdminAclVersion, adminAclVersion,
     * nonAdminUpdateAclConfig, outsideWhiteSigned, outsideWhiteWrongSecret, whiteWrongSecret,
     * whiteDenyTopic, queryUniqueKeyRaw, queryKeyFlagFalseRaw, queryKeyNoFlagRaw,
     * queryUniqueKeyClient, retryV1Raw, retryV2Raw, retryV1Unsigned, batchDenyTopic, pullDeniedGroup,
     * pullDenyTopic, heartbeatDeniedGroup, heartbeatProducerOnly, updateOffsetDeniedGroup,
     * updateOffsetMissingField, getConsumerListDeniedGroup, unregisterDeniedGroup, sendBackDeniedGroup,
     * queryConsumerOffsetNoCheck.
     */
    static int matrix(String[] args) throws Exception {
        final String namesrv = args[1];
        final String broker = args[2];
        final String admin = option(args, "--admin");
        final String allowed = option(args, "--allowed");
        final String subOnly = option(args, "--sub-only");
        final String outside = option(args, "--outside-white");
        final String white = option(args, "--white");
        final String topic = option(args, "--topic");
        final String denyTopic = option(args, "--deny-topic");
        final String group = option(args, "--group");
        final String allowedKey = accessKey(allowed);
        final String wrongAllowed = allowedKey + ":wrong-secret-0";
        final String unknown = "NoSuchAccessKey:whatever-secret";

        runCase("sendAllowed", () -> send(namesrv, hook(allowed), "sendAllowed", 0, topic));
        final String[] uniqueKey = new String[1];
        runCase("produceForQuery", () -> {
            Map<String, Object> r = send(namesrv, hook(allowed), "produceForQuery", 0, topic);
            uniqueKey[0] = (String) r.get("msgId");
            return r;
        });
        runCase("wrongSecret", () -> send(namesrv, hook(wrongAllowed), "wrongSecret", 0, topic));
        runCase("wrongSecretDefaultRetries", () -> send(namesrv, hook(wrongAllowed), "wrongSecretDefault", 2, topic));
        runCase("unknownAccessKey", () -> send(namesrv, hook(unknown), "unknownAccessKey", 0, topic));
        runCase("unknownAccessKeyDefaultRetries", () -> send(namesrv, hook(unknown), "unknownDefault", 2, topic));
        runCase("denyTopic", () -> send(namesrv, hook(allowed), "denyTopic", 0, denyTopic));
        runCase("subOnlySend", () -> send(namesrv, hook(subOnly), "subOnlySend", 0, topic));
        runCase("unsignedSend", () -> send(namesrv, null, "unsignedSend", 0, topic));

        runCase("nonAdminUpdateTopic", () -> {
            DefaultMQAdminExt a = adminExt(namesrv, hook(allowed), "nonAdminUpdateTopic");
            a.start();
            try {
                a.createAndUpdateTopicConfig(broker, new TopicConfig("AclNewTopicByNonAdmin", 4, 4, 6));
                return success(null);
            } finally {
                a.shutdown();
            }
        });
        runCase("nonAdminCreateTopic", () -> {
            DefaultMQProducer p = producer(namesrv, hook(allowed), "nonAdminCreateTopic", 0);
            p.start();
            try {
                p.createTopic(TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, "AclNewTopicByProducer", 4);
                return success(null);
            } finally {
                p.shutdown();
            }
        });
        runCase("adminUpdateTopic", () -> {
            DefaultMQAdminExt a = adminExt(namesrv, hook(admin), "adminUpdateTopic");
            a.start();
            try {
                a.createAndUpdateTopicConfig(broker, new TopicConfig("AclNewTopicByAdmin", 4, 4, 6));
                return success(null);
            } finally {
                a.shutdown();
            }
        });
        runCase("nonAdminAclVersion", () -> {
            DefaultMQAdminExt a = adminExt(namesrv, hook(allowed), "nonAdminAclVersion");
            a.start();
            try {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("clusterName", a.examineBrokerClusterAclVersionInfo(broker).getClusterName());
                return success(m);
            } finally {
                a.shutdown();
            }
        });
        runCase("adminAclVersion", () -> {
            DefaultMQAdminExt a = adminExt(namesrv, hook(admin), "adminAclVersion");
            a.start();
            try {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("clusterName", a.examineBrokerClusterAclVersionInfo(broker).getClusterName());
                return success(m);
            } finally {
                a.shutdown();
            }
        });
        runCase("nonAdminUpdateAclConfig", () -> {
            DefaultMQAdminExt a = adminExt(namesrv, hook(allowed), "nonAdminUpdateAclConfig");
            a.start();
            try {
                PlainAccessConfig pac = new PlainAccessConfig();
                pac.setAccessKey("CreatedByNonAdmin");
                pac.setSecretKey("CreatedByNonAdmin1");
                pac.setAdmin(true);
                a.createAndUpdatePlainAccessConfig(broker, pac);
                return success(null);
            } finally {
                a.shutdown();
            }
        });

        runCase("outsideWhiteSigned", () -> send(namesrv, hook(outside), "outsideWhiteSigned", 0, topic));
        runCase("outsideWhiteWrongSecret", () ->
            send(namesrv, hook(accessKey(outside) + ":wrong-secret-1"), "outsideWhiteWrong", 0, topic));
        runCase("whiteWrongSecret", () ->
            send(namesrv, hook(accessKey(white) + ":wrong-secret-2"), "whiteWrongSecret", 0, topic));
        runCase("whiteDenyTopic", () -> send(namesrv, hook(white), "whiteDenyTopic", 0, denyTopic));

        // MQClientAPIImpl.queryMessage always adds _UNIQUE_KEY_QUERY ("true" or "false") before signing
        runCase("queryUniqueKeyRaw", () -> raw(broker, hook(allowed), queryRequest(topic, uniqueKey[0], "true")));
        runCase("queryKeyFlagFalseRaw", () -> raw(broker, hook(allowed), queryRequest(topic, "no-such-key", "false")));
        runCase("queryKeyNoFlagRaw", () -> raw(broker, hook(allowed), queryRequest(topic, "no-such-key", null)));
        runCase("queryUniqueKeyClient", () -> {
            DefaultMQAdminExt a = adminExt(namesrv, hook(allowed), "queryUniqueKeyClient");
            a.start();
            try {
                QueryResult r = a.queryMessageByUniqKey(topic, uniqueKey[0], 32, 0, Long.MAX_VALUE);
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("found", r.getMessageList().size());
                return success(m);
            } finally {
                a.shutdown();
            }
        });

        // %RETRY%<group> of a group the account has no right on: V1 names the group `producerGroup`,
        // which the validator does not read, V2 names it `a`, which it does
        final String retryTopic = MixAll.getRetryTopic(group);
        final byte[] body = "retry-body".getBytes(StandardCharsets.UTF_8);
        runCase("retryV1Raw", () -> {
            RemotingCommand r = RemotingCommand.createRequestCommand(RequestCode.SEND_MESSAGE,
                sendHeader(group, retryTopic));
            r.setBody(body);
            return raw(broker, hook(allowed), r);
        });
        runCase("retryV2Raw", () -> {
            RemotingCommand r = RemotingCommand.createRequestCommand(RequestCode.SEND_MESSAGE_V2,
                SendMessageRequestHeaderV2.createSendMessageRequestHeaderV2(sendHeader(group, retryTopic)));
            r.setBody(body);
            return raw(broker, hook(allowed), r);
        });
        runCase("retryV1Unsigned", () -> {
            RemotingCommand r = RemotingCommand.createRequestCommand(RequestCode.SEND_MESSAGE,
                sendHeader(group, retryTopic));
            r.setBody(body);
            return raw(broker, null, r);
        });

        // the per-code resources beyond sends: each names a group (or topic) the account may not use
        final String allowedGroup = option(args, "--allowed-group");
        runCase("batchDenyTopic", () -> {
            DefaultMQProducer p = producer(namesrv, hook(allowed), "batchDenyTopic", 0);
            p.start();
            try {
                return success(sendResult(p.send(Arrays.asList(message(denyTopic, "batch-0"),
                    message(denyTopic, "batch-1")))));
            } finally {
                p.shutdown();
            }
        });
        runCase("pullDeniedGroup", () -> raw(broker, hook(allowed), pullRequest(topic, group)));
        runCase("pullDenyTopic", () -> raw(broker, hook(allowed), pullRequest(denyTopic, allowedGroup)));
        runCase("heartbeatDeniedGroup", () -> raw(broker, hook(allowed), heartbeat(group, topic)));
        runCase("heartbeatProducerOnly", () -> raw(broker, hook(allowed), heartbeat(null, null)));
        runCase("updateOffsetDeniedGroup", () -> raw(broker, hook(allowed), updateOffset(topic, group)));
        runCase("updateOffsetMissingField", () -> {
            RemotingCommand r = RemotingCommand.createRequestCommand(RequestCode.UPDATE_CONSUMER_OFFSET, null);
            r.addExtField("consumerGroup", allowedGroup);
            r.addExtField("topic", topic);
            return raw(broker, hook(allowed), r);
        });
        runCase("getConsumerListDeniedGroup", () -> {
            GetConsumerListByGroupRequestHeader h = new GetConsumerListByGroupRequestHeader();
            h.setConsumerGroup(group);
            return raw(broker, hook(allowed),
                RemotingCommand.createRequestCommand(RequestCode.GET_CONSUMER_LIST_BY_GROUP, h));
        });
        runCase("unregisterDeniedGroup", () -> {
            UnregisterClientRequestHeader h = new UnregisterClientRequestHeader();
            h.setClientID("127.0.0.1@acl-probe-heartbeat");
            h.setConsumerGroup(group);
            return raw(broker, hook(allowed), RemotingCommand.createRequestCommand(RequestCode.UNREGISTER_CLIENT, h));
        });
        runCase("sendBackDeniedGroup", () -> {
            ConsumerSendMsgBackRequestHeader h = new ConsumerSendMsgBackRequestHeader();
            h.setOffset(0L);
            h.setGroup(group);
            h.setDelayLevel(0);
            h.setOriginTopic(topic);
            h.setOriginMsgId(uniqueKey[0]);
            return raw(broker, hook(allowed),
                RemotingCommand.createRequestCommand(RequestCode.CONSUMER_SEND_MSG_BACK, h));
        });
        runCase("queryConsumerOffsetNoCheck", () -> {
            QueryConsumerOffsetRequestHeader h = new QueryConsumerOffsetRequestHeader();
            h.setConsumerGroup(group);
            h.setTopic(topic);
            h.setQueueId(0);
            return raw(broker, hook(allowed),
                RemotingCommand.createRequestCommand(RequestCode.QUERY_CONSUMER_OFFSET, h));
        });
        return 0;
    }
}
