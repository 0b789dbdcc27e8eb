package org.rocketmqts.interop;

import java.util.List;
import java.util.Map;

/**
 * A tiny JSON writer for our own outputs (manifest, probe lines). It is deliberately independent
 * of fastjson so the manifest format never depends on the library under test. Maps keep their
 * iteration order (use LinkedHashMap/TreeMap); longs should be passed as strings by callers that
 * want JavaScript-safe values.
 */
public final class Json {
    private Json() {
    }

    public static String compact(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, -1, 0);
        return sb.toString();
    }

    public static String pretty(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, 2, 0);
        sb.append('\n');
        return sb.toString();
    }

    private static void newline(StringBuilder sb, int indent, int depth) {
        if (indent < 0) {
            return;
        }
        sb.append('\n');
        for (int i = 0; i < indent * depth; i++) {
            sb.append(' ');
        }
    }

    private static void write(StringBuilder sb, Object value, int indent, int depth) {
        if (value == null) {
            sb.append("null");
        } else if (value instanceof String) {
            string(sb, (String) value);
        } else if (value instanceof Boolean || value instanceof Integer || value instanceof Short
            || value instanceof Byte || value instanceof Long) {
            sb.append(value.toString());
        } else if (value instanceof Number) {
            throw new IllegalArgumentException("only integral numbers are written: " + value);
        } else if (value instanceof Map) {
            Map<?, ?> map = (Map<?, ?>) value;
            if (map.isEmpty()) {
                sb.append("{}");
                return;
            }
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                newline(sb, indent, depth + 1);
                string(sb, String.valueOf(e.getKey()));
                sb.append(indent < 0 ? ":" : ": ");
                write(sb, e.getValue(), indent, depth + 1);
            }
            newline(sb, indent, depth);
            sb.append('}');
        } else if (value instanceof List) {
            List<?> list = (List<?>) value;
            if (list.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append('[');
            boolean first = true;
            for (Object o : list) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                newline(sb, indent, depth + 1);
                write(sb, o, indent, depth + 1);
            }
            newline(sb, indent, depth);
            sb.append(']');
        } else {
            throw new IllegalArgumentException("cannot write " + value.getClass());
        }
    }

    /** Escapes quotes, backslashes, all C0 controls, DEL and lone surrogates; other text stays raw UTF-8. */
    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean loneSurrogate = false;
            if (Character.isHighSurrogate(c)) {
                loneSurrogate = i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
                if (!loneSurrogate) {
                    sb.append(c).append(s.charAt(i + 1));
                    i++;
                    continue;
                }
            } else if (Character.isLowSurrogate(c)) {
                loneSurrogate = true;
            }
            if (c == '"') {
                sb.append("\\\"");
            } else if (c == '\\') {
                sb.append("\\\\");
            } else if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\r') {
                sb.append("\\r");
            } else if (c == '\t') {
                sb.append("\\t");
            } else if (c < 0x20 || c == 0x7f || loneSurrogate) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        sb.append('"');
    }
}
