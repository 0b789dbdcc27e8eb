package org.rocketmqts.interop.golden;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.rocketmq.common.UtilAll;
import org.apache.rocketmq.common.compression.CompressorFactory;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageClientExt;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.sysflag.MessageSysFlag;
import org.apache.rocketmq.store.CommitLog;
import org.apache.rocketmq.store.MessageExtBrokerInner;
import org.rocketmqts.interop.Hex;

/**
 * Stored/pulled message records from MessageDecoder.encode(MessageExt, needCompress), a pull body of
 * three records back to back, a SEND_BATCH body from MessageDecoder.encodeMessages, and one record
 * pre-encoded by the broker's own CommitLog.MessageExtEncoder for comparison.
 */
final class MessageFixtures {
    static final String UNIQ = "7F0000011092232A3A6D0C4D3C100000";

    private final Out out;
    private final Map<String, Object> section = new LinkedHashMap<>();

    MessageFixtures(Out out) {
        this.out = out;
    }

    static InetSocketAddress addr(String ip, int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(ip), port);
    }

    static byte[] text(int minBytes) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; sb.length() < minBytes; i++) {
            sb.append(String.format("RocketMQ golden fixture line %04d: the quick brown fox jumps over the lazy dog%n", i));
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A baseline MessageExt; callers change what their variant is about. */
    static MessageExt base() throws Exception {
        MessageExt m = new MessageExt();
        m.setTopic("TopicTest");
        m.setBody("Hello RocketMQ".getBytes(StandardCharsets.UTF_8));
        m.setFlag(0);
        m.setQueueId(3);
        m.setQueueOffset(118L);
        m.setCommitLogOffset(12345678L);
        m.setSysFlag(0);
        m.setBornTimestamp(1700000000123L);
        m.setBornHost(addr("192.0.2.5", 53211));
        m.setStoreTimestamp(1700000000456L);
        m.setStoreHost(addr("127.0.0.1", 10911));
        m.setReconsumeTimes(0);
        m.setPreparedTransactionOffset(0L);
        m.setTags("TagA");
        m.setKeys("k1 k2");
        MessageAccessor.putProperty(m, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, UNIQ);
        MessageAccessor.putProperty(m, MessageConst.PROPERTY_CLUSTER, "DefaultCluster");
        m.putUserProperty("city", "Hangzhou");
        m.putUserProperty("amount", "42");
        return m;
    }

    Map<String, Object> run() throws Exception {
        List<Object> records = new ArrayList<>();
        Map<String, MessageExt> byName = new LinkedHashMap<>();

        MessageExt plain = base();
        records.add(record("plain-ipv4", "IPv4 hosts, tags, keys, UNIQ_KEY, CLUSTER and two user properties",
            plain, false));
        byName.put("plain-ipv4", plain);

        MessageExt empty = base();
        MessageAccessor.setProperties(empty, new HashMap<String, String>());
        empty.setTopic("T");
        records.add(record("empty-properties", "no properties at all: PROPERTIES length 0", empty, false));

        MessageExt emptyBody = base();
        emptyBody.setBody(new byte[0]);
        records.add(record("empty-body", "zero-length body: BODY length 0; Java decodes it as a null body",
            emptyBody, false));

        MessageExt zlib = base();
        zlib.setBody(text(8192));
        zlib.setSysFlag(MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_ZLIB_TYPE);
        records.add(record("compressed-zlib", "body > 4 KiB compressed by encode(needCompress=true) with the ZLIB "
            + "compressor at level 5; sysFlag 0x301 as 4.9.4+ producers set it", zlib, true));
        byName.put("compressed-zlib", zlib);

        MessageExt legacy = base();
        legacy.setBody(text(5000));
        legacy.setSysFlag(MessageSysFlag.COMPRESSED_FLAG);
        records.add(record("compressed-legacy", "sysFlag 0x1 only (pre-4.9.4 producers): compression type bits 0 "
            + "still mean ZLIB", legacy, true));

        MessageExt v6born = base();
        v6born.setBornHost(addr("2001:db8::5", 53211));
        v6born.setBornHostV6Flag();
        records.add(record("ipv6-born-host", "BORNHOST is 16+4 bytes (sysFlag 0x10)", v6born, false));

        MessageExt v6store = base();
        v6store.setStoreHost(addr("2001:db8::10", 10911));
        v6store.setStoreHostAddressV6Flag();
        records.add(record("ipv6-store-host", "STOREHOST is 16+4 bytes (sysFlag 0x20); offsetMsgId is 56 chars",
            v6store, false));

        MessageExt v6both = base();
        v6both.setBornHost(addr("2001:db8::5", 53211));
        v6both.setStoreHost(addr("2001:db8::10", 10911));
        v6both.setBornHostV6Flag();
        v6both.setStoreHostAddressV6Flag();
        records.add(record("ipv6-both", "both hosts IPv6 (sysFlag 0x30)", v6both, false));
        byName.put("ipv6-both", v6both);

        MessageExt prepared = base();
        prepared.setSysFlag(MessageSysFlag.TRANSACTION_PREPARED_TYPE);
        prepared.setQueueOffset(0L);
        MessageAccessor.putProperty(prepared, MessageConst.PROPERTY_TRANSACTION_PREPARED, "true");
        MessageAccessor.putProperty(prepared, MessageConst.PROPERTY_PRODUCER_GROUP, "pg-golden");
        records.add(record("transaction-prepared", "half message: sysFlag PREPARED (0x4), TRAN_MSG=true, PGROUP; "
            + "the broker stores prepared messages with queue offset 0", prepared, false));

        MessageExt commit = base();
        commit.setSysFlag(MessageSysFlag.TRANSACTION_COMMIT_TYPE);
        commit.setPreparedTransactionOffset(12345000L);
        commit.setReconsumeTimes(0);
        records.add(record("transaction-commit", "commit record: sysFlag COMMIT (0x8) and preparedTransactionOffset "
            + "pointing at the half message", commit, false));

        MessageExt retry = base();
        retry.setTopic("%RETRY%cg-golden");
        retry.setReconsumeTimes(3);
        MessageAccessor.putProperty(retry, MessageConst.PROPERTY_RETRY_TOPIC, "TopicTest");
        MessageAccessor.putProperty(retry, MessageConst.PROPERTY_ORIGIN_MESSAGE_ID, "7F00000100002A9F0000000000BC614E");
        MessageAccessor.putProperty(retry, MessageConst.PROPERTY_MAX_RECONSUME_TIMES, "16");
        records.add(record("retry-reconsume", "a retried message: RECONSUMETIMES 3 on a %RETRY% topic",
            retry, false));

        MessageExt nonAscii = base();
        nonAscii.putUserProperty("city", "Zürich \uD83C\uDFD4");
        nonAscii.putUserProperty("订单", "编号-42");
        nonAscii.putUserProperty("ключ", "значение");
        nonAscii.setTags("标签A");
        nonAscii.setTopic("TopicTest");
        records.add(record("non-ascii-properties", "non-ASCII property names, values and tag (UTF-8 in the "
            + "PROPERTIES section; its length counts bytes)", nonAscii, false));

        MessageExt big = base();
        big.setQueueOffset(9007199254740993L);
        big.setCommitLogOffset(4611686018427400000L);
        big.setPreparedTransactionOffset(Long.MAX_VALUE);
        big.setBornTimestamp(253402300799999L);
        big.setStoreTimestamp(253402300800000L);
        big.setFlag(Integer.MIN_VALUE);
        big.setQueueId(Integer.MAX_VALUE);
        big.setReconsumeTimes(Integer.MAX_VALUE);
        records.add(record("large-values", "offsets above 2^53 (JavaScript numbers would round them), "
            + "Long.MAX_VALUE prepared offset, year-9999 timestamps, negative user flag", big, false));

        MessageExt topic127 = base();
        topic127.setTopic(repeat('t', 127));
        records.add(record("topic-127", "the longest topic the 1-byte signed TOPIC length can hold", topic127, false));

        MessageExt topic128 = base();
        topic128.setTopic(repeat('t', 128));
        records.add(encodeFailure("topic-128-overflow", "a 128-byte topic: encode sizes the buffer with "
            + "(byte)128 = -128 as the topic length and throws; no file is written", topic128));

        section.put("records", records);
        section.put("pullBody", pullBody(byName));
        section.put("batch", batch());
        section.put("commitLogComparison", commitLogComparison(base()));
        section.put("notes", Arrays.asList(
            "Fields are the MessageExt values handed to MessageDecoder.encode; longs are decimal strings.",
            "BODYCRC is whatever MessageExt.getBodyCRC() holds: encode does not compute it. These fixtures set it "
                + "to UtilAll.crc32(stored body) as CommitLog.asyncPutMessage does.",
            "bodyHex is the body as stored (compressed when sysFlag bit 0 is set); decoded.bodyHex is what "
                + "MessageDecoder.clientDecode returns (decompressed).",
            "Compressed bytes come from java.util.zip via the ZlibCompressor; another zlib build may produce different "
                + "but equally valid bytes, so compare decompressed bodies."));
        return section;
    }

    private static String repeat(char c, int n) {
        char[] a = new char[n];
        Arrays.fill(a, c);
        return new String(a);
    }

    /** The body bytes the record will carry (compressed like encode(needCompress=true) does). */
    private static byte[] storedBody(MessageExt m, boolean needCompress) throws Exception {
        int sysFlag = m.getSysFlag();
        if (needCompress && (sysFlag & MessageSysFlag.COMPRESSED_FLAG) == MessageSysFlag.COMPRESSED_FLAG) {
            return CompressorFactory.getCompressor(MessageSysFlag.getCompressionType(sysFlag)).compress(m.getBody(), 5);
        }
        return m.getBody();
    }

    private Map<String, Object> encodeFailure(String name, String description, MessageExt m) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", name);
        e.put("file", null);
        e.put("description", description);
        e.put("method", "MessageDecoder.encode(MessageExt, needCompress=false)");
        try {
            MessageDecoder.encode(m, false);
            throw new IllegalStateException(name + ": expected MessageDecoder.encode to fail");
        } catch (IllegalStateException ex) {
            throw ex;
        } catch (Exception ex) {
            e.put("encodeError", ex.getClass().getName());
        }
        return e;
    }

    private Map<String, Object> record(String name, String description, MessageExt m, boolean needCompress)
        throws Exception {
        byte[] stored = storedBody(m, needCompress);
        m.setBodyCRC(UtilAll.crc32(stored));
        byte[] bytes = MessageDecoder.encode(m, needCompress);
        String file = out.write("messages/" + name + ".bin", bytes);
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", name);
        e.put("file", file);
        e.put("description", description);
        e.put("method", "MessageDecoder.encode(MessageExt, needCompress=" + needCompress + ")");
        e.put("length", bytes.length);
        e.put("fields", fields(m, stored));
        e.put("expectedOffsetMsgId", MessageDecoder.createMessageId(m.getStoreHost(), m.getCommitLogOffset()));
        e.put("decoded", decoded(bytes));
        return e;
    }

    static Map<String, Object> fields(MessageExt m, byte[] storedBody) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("topic", m.getTopic());
        f.put("topicUtf8Length", m.getTopic().getBytes(StandardCharsets.UTF_8).length);
        f.put("queueId", m.getQueueId());
        f.put("flag", m.getFlag());
        f.put("queueOffset", Long.toString(m.getQueueOffset()));
        f.put("commitLogOffset", Long.toString(m.getCommitLogOffset()));
        f.put("sysFlag", m.getSysFlag());
        f.put("bornTimestamp", Long.toString(m.getBornTimestamp()));
        f.put("bornHost", host(m.getBornHost()));
        f.put("storeTimestamp", Long.toString(m.getStoreTimestamp()));
        f.put("storeHost", host(m.getStoreHost()));
        f.put("reconsumeTimes", m.getReconsumeTimes());
        f.put("preparedTransactionOffset", Long.toString(m.getPreparedTransactionOffset()));
        f.put("bodyCRC", m.getBodyCRC());
        f.put("bodyLength", storedBody.length);
        f.put("bodyHex", Hex.of(storedBody));
        f.put("originalBodyHex", Hex.of(m.getBody()));
        String props = MessageDecoder.messageProperties2String(m.getProperties());
        f.put("propertiesString", props);
        f.put("propertiesHex", Hex.of(props.getBytes(StandardCharsets.UTF_8)));
        f.put("properties", new TreeMap<>(m.getProperties()));
        return f;
    }

    static Map<String, Object> host(java.net.SocketAddress sa) {
        InetSocketAddress a = (InetSocketAddress) sa;
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("ip", a.getAddress().getHostAddress());
        h.put("port", a.getPort());
        h.put("addressHex", Hex.of(a.getAddress().getAddress()));
        return h;
    }

    /** What the 4.9.8 client decoder makes of the bytes (MessageDecoder.clientDecode, readBody=true). */
    static Map<String, Object> decoded(byte[] bytes) {
        Map<String, Object> d = new LinkedHashMap<>();
        MessageExt m = MessageDecoder.clientDecode(ByteBuffer.wrap(bytes), true);
        if (m == null) {
            d.put("ok", false);
            return d;
        }
        d.put("ok", true);
        d.put("msgId", m.getMsgId());
        d.put("offsetMsgId", ((MessageClientExt) m).getOffsetMsgId());
        d.put("storeSize", m.getStoreSize());
        d.put("topic", m.getTopic());
        d.put("sysFlag", m.getSysFlag());
        d.put("queueOffset", Long.toString(m.getQueueOffset()));
        d.put("commitLogOffset", Long.toString(m.getCommitLogOffset()));
        d.put("bornHost", host(m.getBornHost()));
        d.put("storeHost", host(m.getStoreHost()));
        d.put("bodyHex", Hex.of(m.getBody()));
        d.put("properties", m.getProperties() == null ? null : new TreeMap<>(m.getProperties()));
        return d;
    }

    private Map<String, Object> pullBody(Map<String, MessageExt> byName) throws Exception {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        List<Object> parts = new ArrayList<>();
        long offset = 8192L;
        long queueOffset = 200L;
        for (Map.Entry<String, MessageExt> en : byName.entrySet()) {
            MessageExt m = en.getValue();
            boolean compress = (m.getSysFlag() & MessageSysFlag.COMPRESSED_FLAG) != 0;
            m.setCommitLogOffset(offset);
            m.setQueueOffset(queueOffset++);
            byte[] stored = storedBody(m, compress);
            m.setBodyCRC(UtilAll.crc32(stored));
            byte[] bytes = MessageDecoder.encode(m, compress);
            all.write(bytes);
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("from", en.getKey());
            p.put("position", Long.toString(offset - 8192L));
            p.put("length", bytes.length);
            p.put("fields", fields(m, stored));
            parts.add(p);
            offset += bytes.length;
        }
        byte[] body = all.toByteArray();
        String file = out.write("messages/pull-body-3.bin", body);
        List<Object> decoded = new ArrayList<>();
        for (MessageExt m : MessageDecoder.decodes(ByteBuffer.wrap(body))) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("msgId", m.getMsgId());
            d.put("offsetMsgId", ((MessageClientExt) m).getOffsetMsgId());
            d.put("queueOffset", Long.toString(m.getQueueOffset()));
            d.put("commitLogOffset", Long.toString(m.getCommitLogOffset()));
            d.put("bodyLength", m.getBody() == null ? 0 : m.getBody().length);
            decoded.add(d);
        }
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("file", file);
        e.put("description", "a PULL_MESSAGE response body: three stored records back to back (commit log "
            + "offsets consecutive from 8192, queue offsets 200..202)");
        e.put("length", body.length);
        e.put("messages", parts);
        e.put("decodes", decoded);
        return e;
    }

    private Map<String, Object> batch() throws Exception {
        List<Message> msgs = new ArrayList<>();
        String[] uniq = {"7F0000011092232A3A6D0C4D3C100001", "7F0000011092232A3A6D0C4D3C100002",
            "7F0000011092232A3A6D0C4D3C100003"};
        for (int i = 0; i < 3; i++) {
            Message m = new Message("TopicTest", "TagB", "batch-key-" + i,
                ("batch body " + i + " \u00e9").getBytes(StandardCharsets.UTF_8));
            m.setFlag(i * 3);
            m.putUserProperty("seq", Integer.toString(i));
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, uniq[i]);
            msgs.add(m);
        }
        byte[] body = MessageDecoder.encodeMessages(msgs);
        String file = out.write("messages/batch-3.bin", body);
        List<Object> inputs = new ArrayList<>();
        for (Message m : msgs) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("topic", m.getTopic());
            d.put("flag", m.getFlag());
            d.put("bodyHex", Hex.of(m.getBody()));
            d.put("propertiesString", MessageDecoder.messageProperties2String(m.getProperties()));
            d.put("properties", new TreeMap<>(m.getProperties()));
            inputs.add(d);
        }
        List<Object> decoded = new ArrayList<>();
        for (Message m : MessageDecoder.decodeMessages(ByteBuffer.wrap(body))) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("flag", m.getFlag());
            d.put("bodyHex", Hex.of(m.getBody()));
            d.put("properties", new TreeMap<>(m.getProperties()));
            decoded.add(d);
        }
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("file", file);
        e.put("method", "MessageDecoder.encodeMessages(List<Message>) (SEND_BATCH_MESSAGE body)");
        e.put("description", "three messages built with new Message(topic, tags, keys, body) (so WAIT=true is "
            + "present), a user property and a fixed UNIQ_KEY each; the topic is not part of the batch record");
        e.put("length", body.length);
        e.put("inputs", inputs);
        e.put("decodeMessages", decoded);
        return e;
    }

    /**
     * Pre-encodes the same message with the broker's CommitLog.MessageExtEncoder (what putMessage writes
     * before doAppend patches QUEUEOFFSET and PHYSICALOFFSET) and compares with MessageDecoder.encode.
     */
    private Map<String, Object> commitLogComparison(MessageExt m) throws Exception {
        byte[] stored = m.getBody();
        m.setBodyCRC(UtilAll.crc32(stored));
        byte[] viaDecoder = MessageDecoder.encode(m, false);

        MessageExtBrokerInner inner = new MessageExtBrokerInner();
        inner.setTopic(m.getTopic());
        inner.setBody(stored);
        inner.setFlag(m.getFlag());
        inner.setQueueId(m.getQueueId());
        inner.setSysFlag(m.getSysFlag());
        inner.setBornTimestamp(m.getBornTimestamp());
        inner.setBornHost(m.getBornHost());
        inner.setStoreTimestamp(m.getStoreTimestamp());
        inner.setStoreHost(m.getStoreHost());
        inner.setReconsumeTimes(m.getReconsumeTimes());
        inner.setPreparedTransactionOffset(m.getPreparedTransactionOffset());
        inner.setBodyCRC(m.getBodyCRC());
        MessageAccessor.setProperties(inner, m.getProperties());
        inner.setPropertiesString(MessageDecoder.messageProperties2String(m.getProperties()));

        Class<?> encCls = Class.forName(CommitLog.class.getName() + "$MessageExtEncoder");
        Constructor<?> ctor = encCls.getDeclaredConstructor(int.class);
        ctor.setAccessible(true);
        Object encoder = ctor.newInstance(64 * 1024);
        Method encode = encCls.getDeclaredMethod("encode", MessageExtBrokerInner.class);
        encode.setAccessible(true);
        Object result = encode.invoke(encoder, inner);
        if (result != null) {
            throw new IllegalStateException("CommitLog encoder refused the message: " + result);
        }
        ByteBuffer buf = (ByteBuffer) encCls.getMethod("getEncoderBuffer").invoke(encoder);
        byte[] viaCommitLog = new byte[buf.remaining()];
        buf.get(viaCommitLog);
        String file = out.write("messages/commitlog-preencoded.plain-ipv4.bin", viaCommitLog);

        List<Object> diffs = new ArrayList<>();
        int n = Math.max(viaCommitLog.length, viaDecoder.length);
        for (int i = 0; i < n; i++) {
            int a = i < viaDecoder.length ? viaDecoder[i] & 0xff : -1;
            int b = i < viaCommitLog.length ? viaCommitLog[i] & 0xff : -1;
            if (a != b) {
                diffs.add(i);
            }
        }
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("file", file);
        e.put("method", "CommitLog.MessageExtEncoder.encode(MessageExtBrokerInner) (via reflection), "
            + "then getEncoderBuffer()");
        e.put("comparedWith", "messages/plain-ipv4.bin (MessageDecoder.encode of the same message)");
        e.put("differingByteOffsets", diffs);
        e.put("explanation", "the pre-encoded record has QUEUEOFFSET (bytes 20..27) and PHYSICALOFFSET (28..35) "
            + "zero; CommitLog.doAppend fills them (and rewrites STORETIMESTAMP) under the put lock. Everything "
            + "else is identical when the broker's propertiesString equals messageProperties2String(properties).");
        return e;
    }
}
