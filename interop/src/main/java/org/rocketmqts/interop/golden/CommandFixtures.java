package org.rocketmqts.interop.golden;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.protocol.RequestCode;
import org.apache.rocketmq.common.protocol.ResponseCode;
import org.apache.rocketmq.common.protocol.header.SendMessageRequestHeaderV2;
import org.apache.rocketmq.common.protocol.header.SendMessageResponseHeader;
import org.apache.rocketmq.common.protocol.header.UpdateConsumerOffsetRequestHeader;
import org.apache.rocketmq.common.protocol.header.namesrv.GetRouteInfoRequestHeader;
import org.apache.rocketmq.remoting.CommandCustomHeader;
import org.apache.rocketmq.remoting.netty.NettyDecoder;
import org.apache.rocketmq.remoting.netty.NettyEncoder;
import org.apache.rocketmq.remoting.protocol.LanguageCode;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.SerializeType;
import org.rocketmqts.interop.Hex;

/**
 * Remoting frames exactly as the 4.9.8 NettyEncoder writes them: the command goes through a real
 * NettyEncoder in an EmbeddedChannel (fastEncodeHeader + body, 4-byte length prefix included), and
 * the bytes are decoded back through a real NettyDecoder to record what a Java receiver sees.
 */
final class CommandFixtures {
    private static final String PKG = "org.apache.rocketmq.common.protocol.header.";

    /** header class (relative to PKG), request code constant name, whether it is a response header. */
    private static final String[][] HEADERS = {
        {"SendMessageRequestHeader", "SEND_MESSAGE"},
        {"SendMessageRequestHeaderV2", "SEND_MESSAGE_V2"},
        {"SendMessageResponseHeader", "SEND_MESSAGE_V2"},
        {"PullMessageRequestHeader", "PULL_MESSAGE"},
        {"PullMessageResponseHeader", "PULL_MESSAGE"},
        {"QueryConsumerOffsetRequestHeader", "QUERY_CONSUMER_OFFSET"},
        {"QueryConsumerOffsetResponseHeader", "QUERY_CONSUMER_OFFSET"},
        {"UpdateConsumerOffsetRequestHeader", "UPDATE_CONSUMER_OFFSET"},
        {"GetMaxOffsetRequestHeader", "GET_MAX_OFFSET"},
        {"GetMaxOffsetResponseHeader", "GET_MAX_OFFSET"},
        {"GetMinOffsetRequestHeader", "GET_MIN_OFFSET"},
        {"GetMinOffsetResponseHeader", "GET_MIN_OFFSET"},
        {"SearchOffsetRequestHeader", "SEARCH_OFFSET_BY_TIMESTAMP"},
        {"SearchOffsetResponseHeader", "SEARCH_OFFSET_BY_TIMESTAMP"},
        {"GetEarliestMsgStoretimeRequestHeader", "GET_EARLIEST_MSG_STORETIME"},
        {"GetEarliestMsgStoretimeResponseHeader", "GET_EARLIEST_MSG_STORETIME"},
        {"ViewMessageRequestHeader", "VIEW_MESSAGE_BY_ID"},
        {"QueryMessageRequestHeader", "QUERY_MESSAGE"},
        {"QueryMessageResponseHeader", "QUERY_MESSAGE"},
        {"UnregisterClientRequestHeader", "UNREGISTER_CLIENT"},
        {"ConsumerSendMsgBackRequestHeader", "CONSUMER_SEND_MSG_BACK"},
        {"GetConsumerListByGroupRequestHeader", "GET_CONSUMER_LIST_BY_GROUP"},
        {"NotifyConsumerIdsChangedRequestHeader", "NOTIFY_CONSUMER_IDS_CHANGED"},
        {"EndTransactionRequestHeader", "END_TRANSACTION"},
        {"CheckTransactionStateRequestHeader", "CHECK_TRANSACTION_STATE"},
        {"namesrv.GetRouteInfoRequestHeader", "GET_ROUTEINFO_BY_TOPIC"},
        {"namesrv.RegisterBrokerRequestHeader", "REGISTER_BROKER"},
        {"namesrv.RegisterBrokerResponseHeader", "REGISTER_BROKER"},
        {"namesrv.UnRegisterBrokerRequestHeader", "UNREGISTER_BROKER"},
        {"namesrv.QueryDataVersionRequestHeader", "QUERY_DATA_VERSION"},
        {"namesrv.QueryDataVersionResponseHeader", "QUERY_DATA_VERSION"},
        {"namesrv.GetKVConfigRequestHeader", "GET_KV_CONFIG"},
        {"namesrv.GetKVConfigResponseHeader", "GET_KV_CONFIG"},
        {"namesrv.PutKVConfigRequestHeader", "PUT_KV_CONFIG"},
        {"namesrv.DeleteKVConfigRequestHeader", "DELETE_KV_CONFIG"},
        {"namesrv.GetKVListByNamespaceRequestHeader", "GET_KVLIST_BY_NAMESPACE"},
        {"namesrv.DeleteTopicFromNamesrvRequestHeader", "DELETE_TOPIC_IN_NAMESRV"},
        {"namesrv.WipeWritePermOfBrokerRequestHeader", "WIPE_WRITE_PERM_OF_BROKER"},
        {"namesrv.WipeWritePermOfBrokerResponseHeader", "WIPE_WRITE_PERM_OF_BROKER"},
        {"GetTopicsByClusterRequestHeader", "GET_TOPICS_BY_CLUSTER"},
        {"CreateTopicRequestHeader", "UPDATE_AND_CREATE_TOPIC"},
        {"DeleteTopicRequestHeader", "DELETE_TOPIC_IN_BROKER"},
        {"DeleteSubscriptionGroupRequestHeader", "DELETE_SUBSCRIPTIONGROUP"},
        {"ResetOffsetRequestHeader", "INVOKE_BROKER_TO_RESET_OFFSET"},
        {"GetConsumerRunningInfoRequestHeader", "GET_CONSUMER_RUNNING_INFO"},
        {"ConsumeMessageDirectlyResultRequestHeader", "CONSUME_MESSAGE_DIRECTLY"},
        {"GetConsumerStatusRequestHeader", "INVOKE_BROKER_TO_GET_CONSUMER_STATUS"},
        {"GetConsumerConnectionListRequestHeader", "GET_CONSUMER_CONNECTION_LIST"},
        {"GetTopicStatsInfoRequestHeader", "GET_TOPIC_STATS_INFO"},
        {"GetConsumeStatsRequestHeader", "GET_CONSUME_STATS"},
        {"QueryTopicConsumeByWhoRequestHeader", "QUERY_TOPIC_CONSUME_BY_WHO"},
        {"GetProducerConnectionListRequestHeader", "GET_PRODUCER_CONNECTION_LIST"},
        {"GetBrokerConfigResponseHeader", "GET_BROKER_CONFIG"},
        {"QueryConsumeTimeSpanRequestHeader", "QUERY_CONSUME_TIME_SPAN"},
        {"QueryCorrectionOffsetHeader", "QUERY_CORRECTION_OFFSET"},
        {"CloneGroupOffsetRequestHeader", "CLONE_GROUP_OFFSET"},
        {"ViewBrokerStatsDataRequestHeader", "VIEW_BROKER_STATS_DATA"},
        {"GetConsumeStatsInBrokerHeader", "GET_BROKER_CONSUME_STATS"},
        {"QueryConsumeQueueRequestHeader", "QUERY_CONSUME_QUEUE"},
        {"ResumeCheckHalfMessageRequestHeader", "RESUME_CHECK_HALF_MESSAGE"},
        {"ReplyMessageRequestHeader", "PUSH_REPLY_MESSAGE_TO_CLIENT"},
        {"namesrv.AddWritePermOfBrokerRequestHeader", "ADD_WRITE_PERM_OF_BROKER"},
        {"namesrv.AddWritePermOfBrokerResponseHeader", "ADD_WRITE_PERM_OF_BROKER"},
    };

    private final Out out;
    private final List<Object> entries = new ArrayList<>();
    private int seq;

    CommandFixtures(Out out) {
        this.out = out;
    }

    List<Object> run() throws Exception {
        for (String[] h : HEADERS) {
            @SuppressWarnings("unchecked")
            Class<? extends CommandCustomHeader> cls =
                (Class<? extends CommandCustomHeader>) Class.forName(PKG + h[0]);
            int requestCode = RequestCode.class.getField(h[1]).getInt(null);
            boolean response = cls.getSimpleName().endsWith("ResponseHeader");
            boolean hasOptional = false;
            for (java.lang.reflect.Field f : Headers.fields(cls)) {
                if (!Headers.required(f) && !f.getType().isPrimitive()) {
                    hasOptional = true;
                }
            }
            headerFixture(cls, requestCode, response, true);
            if (hasOptional) {
                headerFixture(cls, requestCode, response, false);
            }
        }
        specials();
        return entries;
    }

    private void headerFixture(Class<? extends CommandCustomHeader> cls, int requestCode, boolean response,
        boolean all) throws Exception {
        String variant = all ? "all" : "required";
        String name = cls.getSimpleName() + "." + variant;
        int opaque = 1000 + seq;
        for (SerializeType st : SerializeType.values()) {
            RemotingCommand cmd;
            CommandCustomHeader header;
            if (response) {
                cmd = RemotingCommand.createResponseCommand(cls);
                header = Headers.fill(cmd.readCustomHeader(), all);
                cmd.setCode(ResponseCode.SUCCESS);
                cmd.setRemark(null);
            } else {
                header = Headers.fill(cls.getDeclaredConstructor().newInstance(), all);
                cmd = RemotingCommand.createRequestCommand(requestCode, header);
            }
            cmd.setOpaque(opaque);
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("headerClass", cls.getSimpleName());
            extra.put("headerVariant", variant);
            extra.put("requestCode", requestCode);
            extra.put("headerFields", Headers.describe(header));
            emit(name, cmd, st, extra, cls);
        }
        seq++;
    }

    private void specials() throws Exception {
        // A request with a JSON body and no custom header (HEART_BEAT carries HeartbeatData).
        special("body.heartbeat", () -> {
            RemotingCommand c = RemotingCommand.createRequestCommand(RequestCode.HEART_BEAT, null);
            c.setBody(BodyFixtures.heartbeat().encode());
            return c;
        }, "HEART_BEAT request, no header, HeartbeatData body (RemotingSerializable.encode)");

        special("remark.non-ascii", () -> RemotingCommand.createResponseCommand(ResponseCode.SYSTEM_ERROR,
            "处理失败: naïve café \uD83D\uDE80 ошибка"),
            "SYSTEM_ERROR response, remark with CJK, Latin-1, Cyrillic and a surrogate pair (U+1F680)");

        special("oneway.update-offset", () -> {
            UpdateConsumerOffsetRequestHeader h = new UpdateConsumerOffsetRequestHeader();
            h.setConsumerGroup("cg-golden");
            h.setTopic("TopicTest");
            h.setQueueId(1);
            h.setCommitOffset(118L);
            RemotingCommand c = RemotingCommand.createRequestCommand(RequestCode.UPDATE_CONSUMER_OFFSET, h);
            c.markOnewayRPC();
            return c;
        }, "UPDATE_CONSUMER_OFFSET marked oneway (flag bit 1)");

        special("response.no-extfields", () -> RemotingCommand.createResponseCommand(ResponseCode.SUCCESS, null),
            "bare SUCCESS response: no header class, no remark, extFields null (absent from JSON)");

        special("send-v2.properties", () -> {
            SendMessageRequestHeaderV2 h = new SendMessageRequestHeaderV2();
            h.setA("pg-golden");
            h.setB("TopicTest");
            h.setC("TBW102");
            h.setD(4);
            h.setE(2);
            h.setF(0);
            h.setG(1700000000123L);
            h.setH(0);
            h.setI("TAGS\u0001TagA\u0002KEYS\u0001订单-1 order-2\u0002WAIT\u0001true\u0002"
                + "UNIQ_KEY\u00017F0000011092232A3A6D0C4D3C100000\u0002city\u0001Zürich \uD83C\uDFD4");
            h.setJ(0);
            h.setK(false);
            h.setM(false);
            RemotingCommand c = RemotingCommand.createRequestCommand(RequestCode.SEND_MESSAGE_V2, h);
            c.setBody("Hello RocketMQ golden body \u2713".getBytes(StandardCharsets.UTF_8));
            return c;
        }, "SEND_MESSAGE_V2 with a properties string (\\u0001/\\u0002, non-ASCII values) in field i, and a body");

        special("send-response.with-region", () -> {
            RemotingCommand c = RemotingCommand.createResponseCommand(SendMessageResponseHeader.class);
            SendMessageResponseHeader h = (SendMessageResponseHeader) c.readCustomHeader();
            h.setMsgId("7F00000100002A9F0000000000001F40");
            h.setQueueId(2);
            h.setQueueOffset(57L);
            c.setCode(ResponseCode.SUCCESS);
            c.setRemark(null);
            c.addExtField(MessageConst.PROPERTY_MSG_REGION, "DefaultRegion");
            c.addExtField(MessageConst.PROPERTY_TRACE_SWITCH, "false");
            return c;
        }, "send response as the broker builds it: header fields plus MSG_REGION/TRACE_ON added to extFields");

        special("opaque.negative", () -> {
            GetRouteInfoRequestHeader h = new GetRouteInfoRequestHeader();
            h.setTopic("TopicTest");
            RemotingCommand c = RemotingCommand.createRequestCommand(RequestCode.GET_ROUTEINFO_BY_TOPIC, h);
            c.setOpaque(-123456789);
            return c;
        }, "GET_ROUTEINFO_BY_TOPIC with a negative opaque");

        special("opaque.min-int", () -> {
            RemotingCommand c = RemotingCommand.createResponseCommand(ResponseCode.TOPIC_NOT_EXIST,
                "No topic route info in name server for the topic: TopicTest");
            c.setOpaque(Integer.MIN_VALUE);
            return c;
        }, "TOPIC_NOT_EXIST response with opaque Integer.MIN_VALUE");

        special("language.go", () -> {
            GetRouteInfoRequestHeader h = new GetRouteInfoRequestHeader();
            h.setTopic("TopicTest");
            RemotingCommand c = RemotingCommand.createRequestCommand(RequestCode.GET_ROUTEINFO_BY_TOPIC, h);
            c.setLanguage(LanguageCode.GO);
            c.setVersion(317);
            return c;
        }, "request from language GO (byte 9) with version 317");

        special("extfields.empty-value", () -> {
            RemotingCommand c = RemotingCommand.createRequestCommand(RequestCode.GET_BROKER_CLUSTER_INFO, null);
            c.addExtField("empty", "");
            c.addExtField("AccessKey", "rocketmq2");
            c.setRemark("");
            return c;
        }, "an extFields value that is the empty string and an empty remark: JSON keeps both, the ROCKETMQ "
            + "header writes length 0 and decodes them as null");

        zeroCopyPull();

        special("response.code-not-supported", () -> RemotingCommand.createResponseCommand(
            ResponseCode.REQUEST_CODE_NOT_SUPPORTED, " request type 9999 not supported"),
            "the reply to an unknown request code");
    }

    /**
     * PullMessageProcessor (transferMsgByHeap=false) and QueryMessageProcessor do not go through
     * NettyEncoder: they write response.encodeHeader(bodyLength) and then the stored messages as a
     * FileRegion. encodeHeader always runs makeCustomHeaderToNet (even for FastCodesHeader), so in
     * ROCKETMQ form the header fields travel as ordinary extFields in HashMap order.
     */
    private void zeroCopyPull() throws Exception {
        byte[] body = org.apache.rocketmq.common.message.MessageDecoder.encode(MessageFixtures.base(), false);
        int opaque = 1000 + seq;
        for (SerializeType st : SerializeType.values()) {
            RemotingCommand cmd = RemotingCommand.createResponseCommand(
                org.apache.rocketmq.common.protocol.header.PullMessageResponseHeader.class);
            CommandCustomHeader h = Headers.fill(cmd.readCustomHeader(), true);
            cmd.setCode(ResponseCode.SUCCESS);
            cmd.setRemark(null);
            cmd.setOpaque(opaque);
            cmd.setSerializeTypeCurrentRPC(st);
            java.nio.ByteBuffer header = cmd.encodeHeader(body.length);
            byte[] frame = new byte[header.remaining() + body.length];
            header.get(frame, 0, header.remaining());
            System.arraycopy(body, 0, frame, frame.length - body.length, body.length);

            RemotingCommand viaEncoder = RemotingCommand.createResponseCommand(
                org.apache.rocketmq.common.protocol.header.PullMessageResponseHeader.class);
            Headers.fill(viaEncoder.readCustomHeader(), true);
            viaEncoder.setCode(ResponseCode.SUCCESS);
            viaEncoder.setRemark(null);
            viaEncoder.setOpaque(opaque);
            viaEncoder.setSerializeTypeCurrentRPC(st);
            viaEncoder.setBody(body);
            boolean same = java.util.Arrays.equals(frame, encode(viaEncoder));

            RemotingCommand back = decode(frame);
            String name = "special.pull-response.zero-copy";
            String file = String.format("commands/%03d-%s.%s.bin", seq, name, st.name().toLowerCase());
            out.write(file, frame);
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", name);
            e.put("file", file);
            e.put("serializeType", st.name());
            e.put("description", "PULL_MESSAGE response as the zero-copy path writes it: "
                + "RemotingCommand.encodeHeader(bodyLength) followed by one stored message (messages/plain-ipv4)");
            e.put("method", "RemotingCommand.encodeHeader(int) + body");
            e.put("sameBytesAsNettyEncoder", same);
            e.put("headerClass", h.getClass().getSimpleName());
            e.put("headerFields", Headers.describe(h));
            e.put("code", cmd.getCode());
            e.put("flag", cmd.getFlag());
            e.put("opaque", cmd.getOpaque());
            e.put("language", cmd.getLanguage().name());
            e.put("languageCode", (int) cmd.getLanguage().getCode());
            e.put("version", cmd.getVersion());
            e.put("remark", cmd.getRemark());
            e.put("extFields", sortedOrNull(back.getExtFields()));
            e.put("decoded", snapshot(back));
            e.put("bodyHex", Hex.of(body));
            int headerLength = ((frame[5] & 0xff) << 16) | ((frame[6] & 0xff) << 8) | (frame[7] & 0xff);
            e.put("frameLength", frame.length);
            e.put("headerLength", headerLength);
            if (st == SerializeType.JSON) {
                e.put("headerText", new String(frame, 8, headerLength, StandardCharsets.UTF_8));
            }
            e.put("roundTrip", roundTrip(back, h.getClass()));
            entries.add(e);
        }
        seq++;
    }

    private interface Maker {
        RemotingCommand make() throws Exception;
    }

    private void special(String name, Maker maker, String description) throws Exception {
        int opaque = 1000 + seq;
        for (SerializeType st : SerializeType.values()) {
            RemotingCommand cmd = maker.make();
            if (cmd.getOpaque() >= 0) {
                cmd.setOpaque(opaque);
            }
            Map<String, Object> extra = new LinkedHashMap<>();
            extra.put("description", description);
            CommandCustomHeader h = cmd.readCustomHeader();
            if (h != null) {
                extra.put("headerClass", h.getClass().getSimpleName());
                extra.put("headerFields", Headers.describe(h));
            }
            emit("special." + name, cmd, st, extra, h == null ? null : h.getClass());
        }
        seq++;
    }

    private void emit(String name, RemotingCommand cmd, SerializeType st, Map<String, Object> extra,
        Class<? extends CommandCustomHeader> headerClass) throws Exception {
        cmd.setSerializeTypeCurrentRPC(st);
        byte[] frame = encode(cmd);
        RemotingCommand back = decode(frame);

        String file = String.format("commands/%03d-%s.%s.bin", seq, name, st.name().toLowerCase());
        out.write(file, frame);

        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", name);
        e.put("file", file);
        e.put("serializeType", st.name());
        e.putAll(extra);
        e.put("code", cmd.getCode());
        e.put("flag", cmd.getFlag());
        e.put("opaque", cmd.getOpaque());
        e.put("language", cmd.getLanguage().name());
        e.put("languageCode", (int) cmd.getLanguage().getCode());
        e.put("version", cmd.getVersion());
        e.put("remark", cmd.getRemark());
        // what a Java receiver decodes from these bytes (RemotingCommand.decode via NettyDecoder)
        e.put("extFields", sortedOrNull(back.getExtFields()));
        e.put("decoded", snapshot(back));
        e.put("bodyHex", Hex.of(cmd.getBody()));
        int headerLength = ((frame[5] & 0xff) << 16) | ((frame[6] & 0xff) << 8) | (frame[7] & 0xff);
        e.put("frameLength", frame.length);
        e.put("headerLength", headerLength);
        if (st == SerializeType.JSON) {
            e.put("headerText", new String(frame, 8, headerLength, StandardCharsets.UTF_8));
        }
        if (headerClass != null && back.getExtFields() != null) {
            e.put("roundTrip", roundTrip(back, headerClass));
        }
        entries.add(e);
    }

    /** Decodes the header back with the official decoder and lists field values as Java reads them. */
    private static Map<String, Object> roundTrip(RemotingCommand back, Class<? extends CommandCustomHeader> cls)
        throws Exception {
        Map<String, Object> r = new LinkedHashMap<>();
        try {
            CommandCustomHeader h = back.decodeCommandCustomHeader(cls);
            Map<String, Object> values = new LinkedHashMap<>();
            for (Map.Entry<String, Object> f : Headers.describe(h).entrySet()) {
                @SuppressWarnings("unchecked")
                Map<String, Object> d = (Map<String, Object>) f.getValue();
                values.put(f.getKey(), d.get("value"));
            }
            r.put("ok", true);
            r.put("fields", values);
        } catch (Exception ex) {
            r.put("ok", false);
            r.put("error", ex.getClass().getSimpleName() + ": " + ex.getMessage());
        }
        return r;
    }

    private static Map<String, Object> snapshot(RemotingCommand c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("code", c.getCode());
        m.put("flag", c.getFlag());
        m.put("opaque", c.getOpaque());
        m.put("language", c.getLanguage() == null ? null : c.getLanguage().name());
        m.put("version", c.getVersion());
        m.put("remark", c.getRemark());
        m.put("serializeTypeCurrentRPC", c.getSerializeTypeCurrentRPC().name());
        m.put("extFields", sortedOrNull(c.getExtFields()));
        m.put("bodyLength", c.getBody() == null ? null : c.getBody().length);
        return m;
    }

    private static Map<String, String> sortedOrNull(HashMap<String, String> m) {
        return m == null ? null : new TreeMap<>(m);
    }

    static byte[] encode(RemotingCommand cmd) {
        EmbeddedChannel ch = new EmbeddedChannel(new NettyEncoder());
        try {
            if (!ch.writeOutbound(cmd)) {
                throw new IllegalStateException("NettyEncoder produced nothing");
            }
            ByteBuf buf = ch.readOutbound();
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            buf.release();
            if (ch.readOutbound() != null) {
                throw new IllegalStateException("NettyEncoder produced more than one buffer");
            }
            return bytes;
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    static RemotingCommand decode(byte[] frame) {
        EmbeddedChannel ch = new EmbeddedChannel(new NettyDecoder());
        try {
            ch.writeInbound(Unpooled.wrappedBuffer(frame));
            RemotingCommand c = ch.readInbound();
            if (c == null) {
                throw new IllegalStateException("NettyDecoder produced no command");
            }
            return c;
        } finally {
            ch.finishAndReleaseAll();
        }
    }
}
