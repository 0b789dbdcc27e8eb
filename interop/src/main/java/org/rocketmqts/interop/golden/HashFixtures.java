package org.rocketmqts.interop.golden;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.common.TopicFilterType;
import org.apache.rocketmq.store.MessageExtBrokerInner;
import org.apache.rocketmq.store.index.IndexFile;
import org.rocketmqts.interop.Hex;

/** Tag hash codes (String.hashCode via tagsString2tagsCode) and index-file key hashes. */
final class HashFixtures {
    /** IndexFile slot count a 4.9.8 broker uses (MessageStoreConfig.maxHashSlotNum). */
    private static final int DEFAULT_HASH_SLOTS = 5000000;

    Map<String, Object> run() throws Exception {
        Map<String, Object> s = new LinkedHashMap<>();
        List<Object> tags = new ArrayList<>();
        for (String t : tagInputs()) {
            Map<String, Object> e = describe(t);
            e.put("hashCode", t.hashCode());
            e.put("tagsCode", Long.toString(MessageExtBrokerInner.tagsString2tagsCode(TopicFilterType.SINGLE_TAG, t)));
            tags.add(e);
        }
        s.put("tags", tags);
        s.put("index", index());
        s.put("notes", Arrays.asList(
            "utf16 lists the UTF-16 code units (what String.hashCode iterates over); the JSON string is the same "
                + "text (lone surrogates are \\u escapes).",
            "tagsCode = MessageExtBrokerInner.tagsString2tagsCode(SINGLE_TAG, tags): 0 for empty, else hashCode "
                + "sign-extended to a long (decimal string).",
            "index.keyHash = IndexFile.indexKeyHashMethod(topic + \"#\" + key) on a real IndexFile; "
                + "slotIndex = keyHash % " + DEFAULT_HASH_SLOTS + " as IndexFile.putKey computes it."));
        return s;
    }

    static Map<String, Object> describe(String t) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("string", t);
        List<Object> units = new ArrayList<>();
        for (int i = 0; i < t.length(); i++) {
            units.add((int) t.charAt(i));
        }
        e.put("utf16", units.size() > 64 ? null : units);
        e.put("length", t.length());
        if (units.size() > 64) {
            e.put("construction", "see 'string'");
        }
        return e;
    }

    private static List<String> tagInputs() {
        StringBuilder longAscii = new StringBuilder();
        for (int i = 0; i < 125; i++) {
            longAscii.append("RocketMQ");
        }
        return Arrays.asList(
            "", "a", "TagA", "TagB", "*", "TagA || TagB", "Aa", "BB", "hello world",
            "订单", "Zürich", "\u00ff", "\uffff", "\u0000",
            "\uD83D\uDE00", "a\uD83D\uDE00b", "\uD800", "\uDFFF x",
            "polygenelubricants", "%RETRY%cg-golden", longAscii.toString());
    }

    private List<Object> index() throws Exception {
        List<Object> list = new ArrayList<>();
        File dir = Files.createTempDirectory("rmq-golden-index").toFile();
        IndexFile idx = new IndexFile(new File(dir, "00000000000000000000").getPath(), 1, 1, 0, 0);
        try {
            String[][] cases = {
                {"TopicTest", "order-42"},
                {"TopicTest", MessageFixtures.UNIQ},
                {"TopicTest", "k1"},
                {"订单主题", "键-1"},
                {"T", minValueKey("T#")},
                {"%RETRY%cg-golden", "7F00000100002A9F0000000000BC614E"},
            };
            for (String[] c : cases) {
                String full = c[0] + "#" + c[1];
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("topic", c[0]);
                e.put("key", c[1]);
                e.put("indexKey", full);
                e.put("indexKeyUtf8Hex", Hex.of(full.getBytes(StandardCharsets.UTF_8)));
                e.put("hashCode", full.hashCode());
                int keyHash = idx.indexKeyHashMethod(full);
                e.put("keyHash", keyHash);
                e.put("slotIndex", keyHash % DEFAULT_HASH_SLOTS);
                list.add(e);
            }
        } finally {
            idx.destroy(0);
            File[] left = dir.listFiles();
            if (left != null) {
                for (File f : left) {
                    f.delete();
                }
            }
            dir.delete();
        }
        return list;
    }

    /**
     * Finds a 7-char suffix (chars '0'..'N') making prefix+suffix hash to Integer.MIN_VALUE, so the
     * Math.abs overflow branch of indexKeyHashMethod is covered. Only the input is derived here; the
     * expected hash comes from IndexFile itself.
     */
    static String minValueKey(String prefix) {
        int h = prefix.hashCode();
        long pow = 1;
        int n = 7;
        for (int i = 0; i < n; i++) {
            pow *= 31;
        }
        // target = 31^n * h + sum(c_i * 31^(n-1-i)) (mod 2^32), with c_i = '0' + d_i and 0 <= d_i < 31
        long base = 0;
        for (int i = 0; i < n; i++) {
            base = base * 31 + '0';
        }
        long need = ((long) Integer.MIN_VALUE - (pow * h) - base) & 0xffffffffL;
        char[] digits = new char[n];
        long rest = need;
        for (int i = n - 1; i >= 0; i--) {
            digits[i] = (char) ('0' + (rest % 31));
            rest /= 31;
        }
        String key = new String(digits);
        if ((prefix + key).hashCode() != Integer.MIN_VALUE) {
            throw new IllegalStateException("min-value key search failed");
        }
        return key;
    }
}
