package org.rocketmqts.interop.golden;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByConfig;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.common.consistenthash.HashFunction;
import org.apache.rocketmq.common.message.MessageQueue;
import org.rocketmqts.interop.Json;

/**
 * Queue allocation vectors: every built-in AllocateMessageQueueStrategy of the 4.9.8 client run over
 * many groups, queue layouts and machine rooms, each member's result (or exception) recorded. The
 * inputs are sorted as RebalanceImpl sorts them, except in the cases labelled "unsorted", which show
 * that no strategy re-sorts. One case per line in allocate/vectors.json keeps diffs readable.
 */
final class AllocateFixtures {
    static final String FILE = "allocate/vectors.json";
    private static final String GROUP = "cg-golden";
    /** A member id that is never in cidAll: the member whose heartbeat the broker has not seen yet. */
    private static final String MISSING = "10.9.9.9@missing";
    private static final String[] TOPICS = {"TopicTest", "%RETRY%cg-golden", "订单", "T\uD800x"};
    private static final String[] BROKERS = {"broker-a", "broker-b", "broker-c", "broker-d"};

    private final Out out;
    private final List<String> lines = new ArrayList<>();
    private final Map<String, Integer> counts = new TreeMap<>();

    AllocateFixtures(Out out) {
        this.out = out;
    }

    /** A strategy as the vectors describe it, and a way to build the official one. */
    private static final class Spec {
        final Map<String, Object> json;
        final Supplier<AllocateMessageQueueStrategy> make;

        Spec(Map<String, Object> json, Supplier<AllocateMessageQueueStrategy> make) {
            this.json = json;
            this.make = make;
        }
    }

    Map<String, Object> run() throws Exception {
        if (!StandardCharsets.UTF_8.equals(Charset.defaultCharset())) {
            throw new IllegalStateException("the consistent-hash vectors need a UTF-8 default charset (String.getBytes())"
                + ", got " + Charset.defaultCharset());
        }
        averaging(avg(), 0, 32);
        averaging(circle(), 1, 8);
        consistentHash();
        byMachineRoom();
        nearby();
        byConfig();
        edges();

        StringBuilder sb = new StringBuilder("[\n");
        for (int i = 0; i < lines.size(); i++) {
            sb.append(lines.get(i)).append(i + 1 < lines.size() ? ",\n" : "\n");
        }
        sb.append("]\n");
        String file = out.writeText(FILE, sb.toString());

        Map<String, Object> s = new LinkedHashMap<>();
        s.put("file", file);
        s.put("cases", lines.size());
        s.put("casesPerStrategy", counts);
        s.put("constructorErrors", constructorErrors());
        s.put("hashFunctions", hashFunctionNotes());
        s.put("machineRoomResolver", "room(s) = the text of s before its first '@', or all of s when it has none; "
            + "brokerDeployIn(mq) = room(mq.brokerName), consumerDeployIn(cid) = room(cid)");
        s.put("notes", Arrays.asList(
            "Each line of the file is one case: strategy (type and parameters), name (getName()), label, "
                + "consumerGroup, topic, mqAll, cidAll and allocations.",
            "mqAll lists queues of the case's topic in order, as runs of one broker: [brokerName, [queueId, ...]].",
            "allocations has one entry per currentCID tried: result (positions in mqAll of the queues allocate "
                + "returned, in its order), or resultQueues ([brokerName, queueId] pairs) for CONFIG and "
                + "MACHINE_ROOM_NEARBY over CONFIG, whose list need not come from mqAll, or error ({class, message} "
                + "of the exception allocate threw).",
            "currentCID is tried for every distinct id of cidAll in order; some cases also try " + MISSING
                + " (absent from cidAll: an empty result and an info log line) and the empty id.",
            "Inputs are sorted as RebalanceImpl sorts them (Collections.sort of MessageQueue and of String) unless "
                + "the label says unsorted.",
            "strategy.type CONFIG lists its messageQueueList as pairs; MACHINE_ROOM its consumeridcs; "
                + "CONSISTENT_HASH its virtualNodeCnt and hashFunction (null: upstream's MD5 of key.getBytes() with "
                + "a UTF-8 default charset; otherwise a name in hashFunctions); MACHINE_ROOM_NEARBY the wrapped "
                + "strategy as inner, with machineRoomResolver."));
        return s;
    }

    // ---- strategies ------------------------------------------------------------------------------

    private static Map<String, Object> type(String type) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", type);
        return m;
    }

    private static Spec avg() {
        return new Spec(type("AVG"), AllocateMessageQueueAveragely::new);
    }

    private static Spec circle() {
        return new Spec(type("AVG_BY_CIRCLE"), AllocateMessageQueueAveragelyByCircle::new);
    }

    private static Spec hash(int virtualNodeCnt, String hashFunction) {
        Map<String, Object> m = type("CONSISTENT_HASH");
        m.put("virtualNodeCnt", virtualNodeCnt);
        m.put("hashFunction", hashFunction);
        HashFunction f = hashFunction == null ? null : customHash(hashFunction);
        return new Spec(m, () -> f == null
            ? new AllocateMessageQueueConsistentHash(virtualNodeCnt)
            : new AllocateMessageQueueConsistentHash(virtualNodeCnt, f));
    }

    private static Spec room(String... consumeridcs) {
        Map<String, Object> m = type("MACHINE_ROOM");
        m.put("consumeridcs", Arrays.asList(consumeridcs));
        return new Spec(m, () -> {
            AllocateMessageQueueByMachineRoom s = new AllocateMessageQueueByMachineRoom();
            s.setConsumeridcs(new LinkedHashSet<>(Arrays.asList(consumeridcs)));
            return s;
        });
    }

    private static Spec config(String topic, List<MessageQueue> list) {
        Map<String, Object> m = type("CONFIG");
        m.put("messageQueueList", pairs(topic, list));
        return new Spec(m, () -> {
            AllocateMessageQueueByConfig s = new AllocateMessageQueueByConfig();
            s.setMessageQueueList(list);
            return s;
        });
    }

    private static Spec nearby(Spec inner) {
        Map<String, Object> m = type("MACHINE_ROOM_NEARBY");
        m.put("inner", inner.json);
        return new Spec(m, () -> new AllocateMachineRoomNearby(inner.make.get(), RESOLVER));
    }

    static String roomOf(String s) {
        int at = s.indexOf('@');
        return at < 0 ? s : s.substring(0, at);
    }

    private static final AllocateMachineRoomNearby.MachineRoomResolver RESOLVER =
        new AllocateMachineRoomNearby.MachineRoomResolver() {
            @Override
            public String brokerDeployIn(MessageQueue messageQueue) {
                return roomOf(messageQueue.getBrokerName());
            }

            @Override
            public String consumerDeployIn(String clientID) {
                return roomOf(clientID);
            }
        };

    /** Custom hash functions a TypeScript test can rebuild from their names. */
    private static HashFunction customHash(String name) {
        switch (name) {
            case "hashCode":
                return key -> (long) key.hashCode();
            case "length":
                return key -> (long) key.length();
            case "hashCodeMod8":
                return key -> (long) Math.floorMod(key.hashCode(), 8);
            case "hashCodeTimesGolden":
                return key -> ((long) key.hashCode()) * 0x9E3779B97F4A7C15L;
            default:
                throw new IllegalArgumentException(name);
        }
    }

    private static Map<String, Object> hashFunctionNotes() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("hashCode", "(long) key.hashCode(): signed, so the ring holds negative keys");
        m.put("length", "(long) key.length(): virtual nodes collide and overwrite each other (TreeMap.put)");
        m.put("hashCodeMod8", "(long) Math.floorMod(key.hashCode(), 8): a ring of at most 8 points that queue "
            + "keys land on exactly (tailMap includes its key)");
        m.put("hashCodeTimesGolden", "((long) key.hashCode()) * 0x9E3779B97F4A7C15L with 64-bit wrap-around: "
            + "keys beyond 2^53");
        return m;
    }

    // ---- inputs ----------------------------------------------------------------------------------

    /** `total` queues spread over `brokers` brokers (the first ones take one more), sorted. */
    private static List<MessageQueue> layout(String topic, int total, String... brokers) {
        List<MessageQueue> mqs = new ArrayList<>();
        for (int b = 0; b < brokers.length; b++) {
            int n = total / brokers.length + (b < total % brokers.length ? 1 : 0);
            for (int q = 0; q < n; q++) {
                mqs.add(new MessageQueue(topic, brokers[b], q));
            }
        }
        Collections.sort(mqs);
        return mqs;
    }

    private static String[] brokers(int n) {
        return Arrays.copyOf(BROKERS, n);
    }

    /** `n` client ids in upstream's ip@instanceName form, sorted as RebalanceImpl sorts them. */
    private static List<String> cids(int n, int style) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            switch (style % 3) {
                case 0:
                    ids.add("10.0.0." + (i + 1) + "@" + (4000 + i));
                    break;
                case 1:
                    ids.add("192.168.1." + (200 - i) + "@DEFAULT");
                    break;
                default:
                    ids.add("172.16." + (i % 4) + "." + (i / 4 + 7) + "@node-" + i + "@unit");
                    break;
            }
        }
        Collections.sort(ids);
        return ids;
    }

    private static List<String> sorted(String... ids) {
        List<String> l = new ArrayList<>(Arrays.asList(ids));
        Collections.sort(l);
        return l;
    }

    // ---- case groups -----------------------------------------------------------------------------

    /**
     * AVG and AVG_BY_CIRCLE: every group size 1..10 with every queue count 1..`dense`, then some
     * counts up to 32 around the multiples of the group sizes, then larger groups and topics.
     */
    private void averaging(Spec spec, int salt, int dense) {
        List<Integer> sizes = new ArrayList<>();
        for (int n = 1; n <= 32; n++) {
            if (n <= dense || n == 11 || n == 15 || n == 16 || n == 17 || n == 23 || n == 24 || n == 32) {
                sizes.add(n);
            }
        }
        for (int c = 1; c <= 10; c++) {
            for (int n : sizes) {
                String topic = TOPICS[(c + n + salt) % 2];
                add(spec, "grid", topic, layout(topic, n, brokers(1 + (c * 7 + n + salt) % 4)), cids(c, c + n),
                    (c + n) % 11 == 0);
            }
        }
        int[][] large = {{16, 64}, {33, 100}, {50, 48}, {12, 128}, {100, 8}};
        for (int[] cn : large) {
            add(spec, "large", "TopicTest", layout("TopicTest", cn[1], brokers(4)), cids(cn[0], cn[0]), false);
        }
    }

    private void consistentHash() {
        int[] sizes = {1, 2, 3, 4, 5, 7, 8, 12, 16, 24, 32};
        for (int c = 1; c <= 10; c++) {
            for (int n : sizes) {
                String topic = TOPICS[(c + n) % TOPICS.length];
                add(hash(10, null), "grid", topic, layout(topic, n, brokers(1 + (c + n) % 4)), cids(c, c + n),
                    (c + n) % 7 == 0);
            }
        }
        for (int v : new int[] {0, 1, 2, 3, 50, 160}) {
            for (int c : new int[] {1, 2, 3, 5, 8}) {
                int n = 4 + 3 * c;
                add(hash(v, null), "virtual nodes", "TopicTest", layout("TopicTest", n, brokers(1 + c % 4)),
                    cids(c, c), c == 3);
            }
        }
        for (String f : new String[] {"hashCode", "length", "hashCodeMod8", "hashCodeTimesGolden"}) {
            for (int c : new int[] {1, 2, 3, 4, 6, 10}) {
                for (int v : new int[] {1, 10}) {
                    int n = 3 + 5 * c;
                    String topic = TOPICS[c % TOPICS.length];
                    add(hash(v, f), "custom hash", topic, layout(topic, n, brokers(1 + c % 4)), cids(c, c + v), false);
                }
            }
        }
        add(hash(10, null), "large", "TopicTest", layout("TopicTest", 128, brokers(4)), cids(24, 0), false);
        add(hash(10, null), "large", "%RETRY%cg-golden", layout("%RETRY%cg-golden", 256, brokers(4)), cids(40, 1),
            false);
    }

    /** Broker layouts in rooms, including names upstream's split("@") rejects or reads oddly. */
    private static List<MessageQueue> roomLayout(String topic, int variant, int perBroker) {
        String[][] variants = {
            {"hz@broker-a", "sh@broker-b"},
            {"hz@broker-a", "hz@broker-b", "sh@broker-c", "bj@broker-d"},
            {"hz@broker-a", "broker-plain", "sh@broker-b"},
            {"hz@", "@broker-x", "hz@a@b", "sh@broker-c", "hz@broker-d"},
            {"bj@broker-a", "bj@broker-b", "bj@broker-c"},
        };
        List<MessageQueue> mqs = new ArrayList<>();
        String[] names = variants[variant];
        for (int b = 0; b < names.length; b++) {
            for (int q = 0; q < perBroker + (b % 2); q++) {
                mqs.add(new MessageQueue(topic, names[b], q));
            }
        }
        Collections.sort(mqs);
        return mqs;
    }

    private void byMachineRoom() {
        String[][] idcs = {{"hz"}, {"hz", "sh"}, {""}, {"sh", "bj", "hz"}};
        for (int v = 0; v < 5; v++) {
            add(room(), "no rooms", "TopicTest", roomLayout("TopicTest", v, 2), cids(3, v), false);
            for (String[] rooms : idcs) {
                for (int c : new int[] {1, 2, 3, 4, 7, 10}) {
                    int perBroker = 1 + (v + c) % 3;
                    add(room(rooms), "rooms", "TopicTest", roomLayout("TopicTest", v, perBroker), cids(c, v + c),
                        c == 4 && v == 1);
                }
            }
        }
    }

    /** Client ids `room@ip@pid`: the room is the resolver's text before the first '@'. */
    private static List<String> roomCids(String... roomsPerMember) {
        String[] ids = new String[roomsPerMember.length];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = roomsPerMember[i] + "@10.1.0." + (i + 1) + "@" + (7000 + i);
        }
        return sorted(ids);
    }

    private void nearby() {
        List<Spec> inners = Arrays.asList(avg(), circle(), hash(10, null), hash(3, "hashCode"), room("hz", "sh"),
            config("TopicTest", layout("TopicTest", 3, "hz@broker-a", "sh@broker-b")));
        String[][] members = {
            {"hz"},
            {"hz", "hz"},
            {"hz", "sh"},
            {"hz", "hz", "sh"},
            {"hz", "sh", "sh", "bj"},
            {"gz", "gz"},
            {"sh", "hz", "hz", "hz", "sh"},
            {"bj", "hz", "sh", "gz", "hz", "sh", "bj"},
        };
        for (int i = 0; i < inners.size(); i++) {
            Spec inner = inners.get(i);
            for (int v = 0; v < 5; v++) {
                // The empty room of "@broker-x" (variant 3) fails every case; see edges(). The wrapped
                // strategies after the first three only need to show they are called room by room.
                if (v == 3 || i >= 3 && v % 2 == 1) {
                    continue;
                }
                for (String[] m : members) {
                    int perBroker = 1 + (v + m.length) % 3;
                    add(nearby(inner), "rooms", "TopicTest", roomLayout("TopicTest", v, perBroker), roomCids(m),
                        m.length == 4);
                }
            }
        }
        // Rooms without members are walked in TreeMap (String.compareTo) order: UTF-16 units, so upper case
        // before lower, "10" before "9", and the emoji (a surrogate pair) before U+FF5E, unlike code-point order.
        List<MessageQueue> odd = new ArrayList<>();
        for (String b : new String[] {"b@x", "B@x", "a@x", "Z@x", "ä@x", "10@x", "9@x", "\uD83D\uDE00@x", "\uFF5E@x"}) {
            for (int q = 0; q < 3; q++) {
                odd.add(new MessageQueue("TopicTest", b, q));
            }
        }
        Collections.sort(odd);
        for (Spec inner : Arrays.asList(avg(), circle(), hash(10, null))) {
            add(nearby(inner), "room order", "TopicTest", odd, roomCids("a", "Z"), false);
            add(nearby(inner), "room order", "TopicTest", odd, roomCids("q", "r", "s"), false);
        }
    }

    private void byConfig() {
        List<MessageQueue> some = Arrays.asList(new MessageQueue("TopicTest", "broker-b", 3),
            new MessageQueue("TopicTest", "broker-a", 0), new MessageQueue("TopicTest", "broker-z", 9));
        add(config("TopicTest", some), "fixed list", "TopicTest", layout("TopicTest", 8, brokers(2)), cids(3, 0), true);
        add(config("TopicTest", new ArrayList<>()), "empty list", "TopicTest", layout("TopicTest", 4, brokers(1)),
            cids(2, 1), false);
        add(config("TopicTest", layout("TopicTest", 5, brokers(3))), "whole topic", "TopicTest",
            layout("TopicTest", 5, brokers(3)), cids(4, 2), false);
    }

    /**
     * What every strategy does with bad input: empty lists and ids (exceptions, checked in upstream's
     * order), duplicate ids, unsorted input and members the broker has not registered yet.
     */
    private void edges() {
        List<MessageQueue> mq8 = layout("TopicTest", 8, brokers(2));
        List<MessageQueue> rooms = roomLayout("TopicTest", 1, 2);
        List<Spec> all = Arrays.asList(avg(), circle(), hash(10, null), room("hz", "sh"), nearby(avg()),
            config("TopicTest", mq8.subList(0, 2)));
        for (Spec s : all) {
            boolean roomy = "MACHINE_ROOM_NEARBY".equals(s.json.get("type")) || "MACHINE_ROOM".equals(s.json.get("type"));
            List<MessageQueue> mqs = roomy ? rooms : mq8;
            List<String> ids = roomy ? roomCids("hz", "sh", "hz") : cids(3, 0);
            String first = ids.get(0);
            addFor(s, "empty currentCID", "TopicTest", mqs, ids, Arrays.asList(""));
            addFor(s, "empty mqAll", "TopicTest", new ArrayList<>(), ids, Arrays.asList(first, "", MISSING));
            addFor(s, "empty cidAll", "TopicTest", mqs, new ArrayList<>(), Arrays.asList(first, MISSING));
            addFor(s, "all empty", "TopicTest", new ArrayList<>(), new ArrayList<>(), Arrays.asList("", MISSING));
            List<String> dup = new ArrayList<>(ids);
            dup.add(1, ids.get(1));
            dup.add(ids.get(ids.size() - 1));
            add(s, "duplicate ids", "TopicTest", mqs, dup, true);
            List<String> dupOnly = Arrays.asList(first, first, first);
            add(s, "one id three times", "TopicTest", mqs, dupOnly, true);
            List<MessageQueue> reversed = new ArrayList<>(mqs);
            Collections.reverse(reversed);
            List<String> shuffled = new ArrayList<>(ids);
            Collections.rotate(shuffled, 1);
            add(s, "unsorted", "TopicTest", reversed, shuffled, false);
            add(s, "more consumers than queues", "TopicTest", mqs.subList(0, 2), roomy ? roomCids("hz", "hz", "sh",
                "sh", "bj") : cids(5, 1), true);
        }
        // Machine rooms the resolver cannot name: upstream throws for the queue or the member.
        for (Spec inner : Arrays.asList(avg(), hash(10, null))) {
            add(nearby(inner), "broker without room", "TopicTest", roomLayout("TopicTest", 3, 1), roomCids("hz", "sh"),
                true);
            List<String> noRoom = new ArrayList<>(roomCids("hz", "sh"));
            noRoom.add("@10.1.0.9@7999");
            Collections.sort(noRoom);
            add(nearby(inner), "member without room", "TopicTest", rooms, noRoom, true);
        }
    }

    private static List<Object> constructorErrors() {
        List<Object> l = new ArrayList<>();
        for (int v : new int[] {-1, Integer.MIN_VALUE}) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("strategy", "CONSISTENT_HASH");
            e.put("virtualNodeCnt", v);
            try {
                new AllocateMessageQueueConsistentHash(v);
                e.put("error", null);
            } catch (RuntimeException ex) {
                e.put("error", error(ex));
            }
            l.add(e);
        }
        return l;
    }

    // ---- recording -------------------------------------------------------------------------------

    private void add(Spec spec, String label, String topic, List<MessageQueue> mqAll, List<String> cidAll,
        boolean withMissing) {
        List<String> tried = new ArrayList<>(new LinkedHashSet<>(cidAll));
        if (withMissing) {
            tried.add(MISSING);
        }
        addFor(spec, label, topic, mqAll, cidAll, tried);
    }

    private void addFor(Spec spec, String label, String topic, List<MessageQueue> mqAll, List<String> cidAll,
        List<String> tried) {
        AllocateMessageQueueStrategy strategy = spec.make.get();
        List<Object> allocations = new ArrayList<>();
        for (String cid : tried) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("currentCID", cid);
            try {
                // Fresh copies: a strategy must not depend on, or change, the caller's lists.
                List<MessageQueue> result = strategy.allocate(GROUP, cid, new ArrayList<>(mqAll), new ArrayList<>(cidAll));
                if (fromConfig(spec)) {
                    a.put("resultQueues", pairs(topic, result));
                } else {
                    a.put("result", indexes(mqAll, result));
                }
            } catch (RuntimeException e) {
                a.put("error", error(e));
            }
            allocations.add(a);
        }
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("strategy", spec.json);
        c.put("name", strategy.getName());
        c.put("label", label);
        c.put("consumerGroup", GROUP);
        c.put("topic", topic);
        c.put("mqAll", runs(topic, mqAll));
        c.put("cidAll", cidAll);
        c.put("allocations", allocations);
        lines.add(Json.compact(c));
        counts.merge(String.valueOf(spec.json.get("type")), 1, Integer::sum);
    }

    /** CONFIG hands out its own list, which need not come from mqAll. */
    private static boolean fromConfig(Spec spec) {
        Object inner = spec.json.get("inner");
        return "CONFIG".equals(spec.json.get("type"))
            || inner instanceof Map && "CONFIG".equals(((Map<?, ?>) inner).get("type"));
    }

    /** Positions in mqAll (which never holds a queue twice) of the queues allocate returned, in its order. */
    private static List<Object> indexes(List<MessageQueue> mqAll, List<MessageQueue> result) {
        if (new LinkedHashSet<>(mqAll).size() != mqAll.size()) {
            throw new IllegalStateException("mqAll holds a queue twice");
        }
        List<Object> l = new ArrayList<>();
        for (MessageQueue mq : result) {
            int i = mqAll.indexOf(mq);
            if (i < 0) {
                throw new IllegalStateException("allocate returned a queue not in mqAll: " + mq);
            }
            l.add(i);
        }
        return l;
    }

    private static Map<String, Object> error(RuntimeException e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("class", e.getClass().getName());
        m.put("message", e.getMessage());
        return m;
    }

    /** mqAll in order as runs of one broker's queues: [brokerName, [queueId, ...]]. */
    private static List<Object> runs(String topic, List<MessageQueue> mqs) {
        List<Object> l = new ArrayList<>();
        String broker = null;
        List<Object> ids = null;
        for (MessageQueue mq : mqs) {
            if (!topic.equals(mq.getTopic())) {
                throw new IllegalStateException("queue of another topic: " + mq);
            }
            if (ids == null || !mq.getBrokerName().equals(broker)) {
                broker = mq.getBrokerName();
                ids = new ArrayList<>();
                l.add(Arrays.asList(broker, ids));
            }
            ids.add(mq.getQueueId());
        }
        return l;
    }

    private static List<Object> pairs(String topic, List<MessageQueue> mqs) {
        List<Object> l = new ArrayList<>();
        for (MessageQueue mq : mqs) {
            if (!topic.equals(mq.getTopic())) {
                throw new IllegalStateException("queue of another topic: " + mq);
            }
            l.add(Arrays.asList(mq.getBrokerName(), mq.getQueueId()));
        }
        return l;
    }
}
