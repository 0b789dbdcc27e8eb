package org.rocketmqts.interop.golden;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.remoting.CommandCustomHeader;
import org.apache.rocketmq.remoting.annotation.CFNotNull;

/**
 * Fills custom header beans by reflection, the same field walk RemotingCommand does (the class and
 * its superclasses, non-static fields whose name does not start with "this"). Values are chosen
 * per field name so every field of every fixture is distinctive and realistic enough to read.
 */
final class Headers {
    private Headers() {
    }

    static List<Field> fields(Class<?> cls) {
        List<Field> out = new ArrayList<>();
        for (Class<?> c = cls; c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && !f.getName().startsWith("this")) {
                    f.setAccessible(true);
                    out.add(f);
                }
            }
        }
        // Stable order for the manifest: by name (the wire order is HashMap order anyway).
        out.sort(Comparator.comparing(Field::getName));
        return out;
    }

    static boolean required(Field f) {
        return f.isAnnotationPresent(CFNotNull.class);
    }

    /** all = every field set; otherwise only @CFNotNull fields (primitives keep their defaults). */
    static <T extends CommandCustomHeader> T fill(T header, boolean all) throws IllegalAccessException {
        int idx = 0;
        for (Field f : fields(header.getClass())) {
            idx++;
            if (!all && !required(f)) {
                continue;
            }
            f.set(header, valueFor(header.getClass().getSimpleName(), f, idx));
        }
        return header;
    }

    /** Field values by Java field name, as the strings makeCustomHeaderToNet would produce (null = absent). */
    static Map<String, Object> describe(CommandCustomHeader header) throws IllegalAccessException {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Field f : fields(header.getClass())) {
            Object v = f.get(header);
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("javaType", f.getType().getName());
            d.put("required", required(f));
            d.put("value", v == null ? null : v.toString());
            out.put(f.getName(), d);
        }
        return out;
    }

    private static Object valueFor(String headerName, Field f, int idx) {
        Class<?> t = f.getType();
        String n = f.getName();
        if (t == String.class) {
            return stringFor(headerName, n);
        }
        if (t == Integer.class || t == int.class) {
            switch (n) {
                case "queueId":
                case "e":
                    return 3;
                case "sysFlag":
                case "f":
                    return headerName.startsWith("Pull") ? 6 : 0x301;
                case "perm":
                    return 6;
                case "commitOrRollback":
                    return 8;
                case "delayLevel":
                    return 3;
                case "maxReconsumeTimes":
                case "l":
                    return 16;
                case "bodyCrc32":
                    return 0x7654321;
                case "defaultTopicQueueNums":
                case "d":
                    return 4;
                case "readQueueNums":
                    return 8;
                case "writeQueueNums":
                    return 8;
                case "maxMsgNums":
                case "maxNum":
                    return 32;
                case "topicSysFlag":
                    return 1;
                case "flag":
                case "h":
                    return -7;
                default:
                    return 100 + idx;
            }
        }
        if (t == Long.class || t == long.class) {
            switch (n) {
                case "bornTimestamp":
                case "g":
                case "timestamp":
                case "beginTimestamp":
                case "indexLastUpdateTimestamp":
                    return 1700000000123L;
                case "endTimestamp":
                    return 1700003600456L;
                case "storeTimestamp":
                    return 1700000000789L;
                case "subVersion":
                    return 1700000000000L;
                case "suspendTimeoutMillis":
                    return 15000L;
                case "brokerId":
                case "suggestWhichBrokerId":
                    return 1L;
                case "commitLogOffset":
                case "indexLastUpdatePhyoffset":
                    // above 2^53: a JavaScript number would round it
                    return 9007199254740993L;
                default:
                    return 4294967296L + idx;
            }
        }
        if (t == Boolean.class || t == boolean.class) {
            return Boolean.TRUE;
        }
        if (t == Double.class || t == double.class) {
            return 0.5d + idx;
        }
        throw new IllegalArgumentException("unsupported field type " + t + " in " + headerName + "." + n);
    }

    private static String stringFor(String headerName, String n) {
        switch (n) {
            case "topic":
            case "b":
                return "TopicTest";
            case "defaultTopic":
            case "c":
                return "TBW102";
            case "producerGroup":
            case "a":
                return "pg-golden";
            case "consumerGroup":
            case "group":
            case "groupName":
                return "cg-golden";
            case "bname":
            case "brokerName":
            case "n":
                return "broker-a";
            case "brokerAddr":
            case "masterAddr":
                return "127.0.0.1:10911";
            case "haServerAddr":
                return "127.0.0.1:10912";
            case "clientAddr":
                return "127.0.0.1:53211";
            case "clusterName":
            case "cluster":
                return "DefaultCluster";
            case "clientID":
            case "clientId":
                return "127.0.0.1@4242#1234567890";
            case "properties":
            case "i":
                // the \u0001 / \u0002 property separators
                return "TAGS\u0001TagA\u0002KEYS\u0001k1 k2\u0002UNIQ_KEY\u00017F0000011092232A3A6D0C4D3C100000";
            case "subscription":
                return "TagA || TagB";
            case "expressionType":
                return "TAG";
            case "msgId":
            case "offsetMsgId":
            case "originMsgId":
                return "7F00000100002A9F0000000000001F40";
            case "transactionId":
                return "7F0000011092232A3A6D0C4D3C100000";
            case "key":
                return "order-42";
            case "namespace":
                return "ORDER_TOPIC_CONFIG";
            case "value":
                return "broker-a:4;broker-b:4";
            case "topicFilterType":
                return "SINGLE_TAG";
            case "originTopic":
                return "TopicOrigin";
            case "srcGroup":
                return "cg-source";
            case "destGroup":
                return "cg-dest";
            case "compareGroup":
                return "cg-compare";
            case "filterGroups":
                return "cg-filter-1,cg-filter-2";
            case "statsName":
                return "TOPIC_PUT_NUMS";
            case "statsKey":
                return "TopicTest";
            case "bornHost":
                return "127.0.0.1:53211";
            case "storeHost":
                return "127.0.0.1:10911";
            case "version":
                // GET_BROKER_CONFIG carries the configuration's DataVersion as JSON text
                return "{\"counter\":7,\"timestamp\":1700000000123}";
            default:
                return "v-" + headerName + "." + n;
        }
    }
}
