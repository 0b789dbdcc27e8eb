package org.rocketmqts.interop;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Command-line flags of the load generators (LoadProducer, LoadConsumer), the same set `rmq bench`
 * takes: the official benchmark tools' one-letter flags as `-x value` (or their long names,
 * `--threadCount value`), ours as `--name value` or `--name=value`. Every flag takes a value. An
 * unknown flag, a missing value, a flag given twice or a value that is not a number, not a boolean or
 * out of range is a {@link BadFlag}, which the programs turn into a one-line error and exit status 2.
 */
final class LoadFlags {
    /** A flag the program cannot run with; its message is the whole error line. */
    static final class BadFlag extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadFlag(String message) {
            super(message);
        }
    }

    static final double MAX_SECONDS = 86_400;
    /** The official tools print every 10 s. */
    static final double DEFAULT_REPORT_SECONDS = 10;
    /** A shorter report interval floods the output without adding information. */
    static final double MIN_REPORT_SECONDS = 0.1;

    private final Map<String, String> values;

    private LoadFlags(Map<String, String> values) {
        this.values = values;
    }

    /**
     * The names a program accepts, each entry "canonical alias...", e.g. "-w --threadCount"; values
     * are looked up by the canonical name.
     */
    static Map<String, String> names(String... entries) {
        Map<String, String> names = new HashMap<>();
        for (String entry : entries) {
            String[] words = entry.split(" ");
            for (String w : words) {
                names.put(w, words[0]);
            }
        }
        return names;
    }

    static LoadFlags parse(String[] args, Map<String, String> names) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name;
            String value = null;
            if (arg.startsWith("--") && arg.length() > 2) {
                int eq = arg.indexOf('=');
                name = eq > 0 ? arg.substring(0, eq) : arg;
                value = eq > 0 ? arg.substring(eq + 1) : null;
            } else if (arg.length() == 2 && arg.charAt(0) == '-') {
                name = arg;
            } else {
                throw new BadFlag("unexpected argument " + arg);
            }
            String canonical = names.get(name);
            if (canonical == null) {
                throw new BadFlag("unknown flag " + name);
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new BadFlag(name + " needs a value");
                }
                value = args[++i];
            }
            if (values.put(canonical, value.trim()) != null) {
                throw new BadFlag(name + " given twice");
            }
        }
        return new LoadFlags(values);
    }

    static boolean wantsHelp(String[] args) {
        for (String a : args) {
            if (a.equals("-h") || a.equals("--help")) {
                return true;
            }
        }
        return false;
    }

    boolean has(String name) {
        return values.containsKey(name);
    }

    String string(String name, String fallback) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        if (v.isEmpty()) {
            throw new BadFlag(name + " needs a non-empty value");
        }
        return v;
    }

    long integer(String name, long fallback, long min, long max) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new BadFlag(name + " takes an integer, not " + v);
        }
        if (n < min || n > max) {
            throw new BadFlag(name + " takes an integer from " + min + " to " + max + ", not " + v);
        }
        return n;
    }

    int smallInteger(String name, int fallback, int min, int max) {
        return (int) integer(name, fallback, min, max);
    }

    double decimal(String name, double fallback, double min, double max) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        double d;
        try {
            d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new BadFlag(name + " takes a number, not " + v);
        }
        if (Double.isNaN(d) || d < min || d > max) {
            throw new BadFlag(name + " takes a number from " + min + " to " + max + ", not " + v);
        }
        return d;
    }

    /** Seconds as a decimal (`--duration 2.5`) up to a day (longer is a typo), returned in milliseconds. */
    long seconds(String name, double fallback, double min) {
        return Math.round(decimal(name, fallback, min, MAX_SECONDS) * 1000);
    }

    boolean bool(String name, boolean fallback) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        String lower = v.toLowerCase(Locale.ROOT);
        if (lower.equals("true")) {
            return true;
        }
        if (lower.equals("false")) {
            return false;
        }
        throw new BadFlag(name + " takes true or false, not " + v);
    }

    /** One of `allowed`, spelled as there (the official tools compare TAG / SQL92 that way too). */
    String choice(String name, String fallback, String... allowed) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        for (String a : allowed) {
            if (a.equals(v)) {
                return a;
            }
        }
        throw new BadFlag(name + " takes " + String.join(" or ", allowed) + ", not " + v);
    }
}
