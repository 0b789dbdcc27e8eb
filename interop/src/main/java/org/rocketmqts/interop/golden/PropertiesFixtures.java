package org.rocketmqts.interop.golden;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.rocketmqts.interop.Hex;

/** MessageDecoder.messageProperties2String and string2messageProperties on ordinary and edge inputs. */
final class PropertiesFixtures {
    Map<String, Object> run() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("toString", toStringCases());
        s.put("fromString", fromStringCases());
        s.put("notes", Arrays.asList(
            "toString.entries lists the map in its iteration order, which is the order of the output.",
            "A null value is skipped, a null key is written as the text \"null\"; no trailing \\u0002 is written.",
            "fromString.result is the HashMap Java returns, shown sorted by key."));
        return s;
    }

    private static Map<String, String> linked(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private List<Object> toStringCases() {
        List<Object> list = new ArrayList<>();
        Map<String, String> hash = new HashMap<>();
        hash.put("TAGS", "TagA");
        hash.put("KEYS", "k1 k2");
        hash.put("UNIQ_KEY", MessageFixtures.UNIQ);
        hash.put("WAIT", "true");
        hash.put("city", "Hangzhou");
        list.add(toStringCase("hashmap-typical", "a HashMap as Message.properties is", hash));
        list.add(toStringCase("linked-order", "iteration order decides the output order",
            linked("b", "2", "a", "1", "c", "3")));
        list.add(toStringCase("empty-map", "empty map", new HashMap<String, String>()));
        list.add(toStringCase("null-map", "null map", null));
        list.add(toStringCase("null-value-skipped", "entries with a null value are left out",
            linked("a", "1", "gone", null, "b", "2")));
        list.add(toStringCase("only-null-values", "every value null: empty string", linked("x", null)));
        list.add(toStringCase("null-key", "a null key is appended as \"null\"", linked(null, "v", "k", "w")));
        list.add(toStringCase("empty-value", "an empty value is written (and dropped again by the parser)",
            linked("a", "", "b", "2")));
        list.add(toStringCase("separators-inside", "values containing \\u0001 are written as-is",
            linked("k", "x\u0001y", "m", "z")));
        list.add(toStringCase("non-ascii", "non-ASCII keys and values",
            linked("城市", "杭州", "emoji", "\uD83D\uDE80", "ключ", "значение")));
        return list;
    }

    private static Map<String, Object> toStringCase(String name, String description, Map<String, String> in) {
        String str = MessageDecoder.messageProperties2String(in);
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("name", name);
        e.put("description", description);
        if (in == null) {
            e.put("entries", null);
        } else {
            List<Object> entries = new ArrayList<>();
            for (Map.Entry<String, String> en : in.entrySet()) {
                entries.add(Arrays.asList(en.getKey(), en.getValue()));
            }
            e.put("entries", entries);
        }
        e.put("string", str);
        e.put("utf8Hex", Hex.of(str.getBytes(StandardCharsets.UTF_8)));
        e.put("parsedBack", new TreeMap<>(MessageDecoder.string2messageProperties(str)));
        return e;
    }

    private List<Object> fromStringCases() {
        String[][] cases = {
            {"empty", ""},
            {"single", "a\u0001b"},
            {"typical", "TAGS\u0001TagA\u0002KEYS\u0001k1 k2"},
            {"two-chars-dropped", "a\u0001"},
            {"no-name-value-separator", "abc"},
            {"empty-key", "\u0001bc"},
            {"empty-value-then-next", "a\u0001\u0002b\u0001c"},
            {"trailing-separator", "a\u00011\u0002"},
            {"trailing-separator-after-two", "TAGS\u0001TagA\u0002KEYS\u0001k1 k2\u0002"},
            {"leading-separator", "\u0002a\u00011"},
            {"double-separator", "a\u00011\u0002\u0002b\u00012"},
            {"value-contains-name-value-separator", "k\u0001v\u0001w"},
            {"duplicate-key-last-wins", "k\u0001v\u0002k\u0001w"},
            {"segment-without-separator-before-valid", "noSep\u0002k\u0001v"},
            {"short-segments", "x\u0002yz\u0002a\u0001b"},
            {"non-ascii", "城市\u0001杭州\u0002emoji\u0001\uD83D\uDE80"},
            {"only-separators", "\u0002\u0001\u0002"},
        };
        List<Object> list = new ArrayList<>();
        for (String[] c : cases) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", c[0]);
            e.put("input", c[1]);
            e.put("inputUtf8Hex", Hex.of(c[1].getBytes(StandardCharsets.UTF_8)));
            e.put("result", new TreeMap<>(MessageDecoder.string2messageProperties(c[1])));
            list.add(e);
        }
        return list;
    }
}
