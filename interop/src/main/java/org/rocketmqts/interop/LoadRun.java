package org.rocketmqts.interop;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.log.ClientLogger;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.SerializeType;

/**
 * What LoadProducer and LoadConsumer share: the run's stop signal, the way out (exit status, shutdown
 * on SIGINT/SIGTERM or when ParentWatchdog sees its stdin close), the interval timer and the output.
 *
 * <p>Exit status: 0 when the run ended (its duration, quantity or count reached, or a signal), 1 when
 * nothing at all could be sent or consumed or the client failed, 2 for a bad flag. A signal makes the
 * shutdown hook ask the run to stop and wait for it to shut its client down and print its summary,
 * then end the JVM with the run's own status.
 */
final class LoadRun {
    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;
    /** How long a signal waits for the run to shut its client down and print the summary. */
    static final long SHUTDOWN_GRACE_MS = 30_000;

    private static final PrintStream OUT;

    static {
        try {
            OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The program itself: reads its flags, runs, returns the exit status. */
    interface Body {
        int run(LoadFlags flags, LoadRun run) throws Exception;
    }

    private final String name;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile int exitCode = EXIT_OK;
    private ScheduledExecutorService timer;

    private LoadRun(String name) {
        this.name = name;
    }

    static void main(String name, String[] args, Map<String, String> flagNames, String usage, Body body) {
        if (LoadFlags.wantsHelp(args)) {
            OUT.print(usage);
            OUT.flush();
            System.exit(EXIT_OK);
        }
        LoadRun run = new LoadRun(name);
        int code;
        try {
            LoadFlags flags = LoadFlags.parse(args, flagNames);
            Runtime.getRuntime().addShutdownHook(new Thread(run::onShutdown, name + "-shutdown"));
            code = body.run(flags, run);
        } catch (LoadFlags.BadFlag e) {
            System.err.println(name + ": " + e.getMessage() + " (--help lists the flags)");
            code = EXIT_USAGE;
        } catch (Throwable e) {
            System.err.println(name + ": " + oneLine(e));
            code = EXIT_FAILED;
        }
        run.stopTimer();
        run.exitCode = code;
        OUT.flush();
        System.err.flush();
        run.finished.countDown();
        // During a signal's shutdown this blocks; the hook then ends the JVM with `code`.
        System.exit(code);
    }

    private void onShutdown() {
        if (finished.getCount() == 0) {
            return;
        }
        stop.countDown();
        try {
            if (finished.await(SHUTDOWN_GRACE_MS, TimeUnit.MILLISECONDS)) {
                Runtime.getRuntime().halt(exitCode);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String oneLine(Throwable e) {
        String m = e.getMessage();
        String text = m == null ? e.getClass().getName() : e.getClass().getSimpleName() + ": " + m;
        // the client's messages carry a multi-line "See http://..." tail
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }

    /**
     * Runs before any client class loads. As the official benchmark tools: RocketMQ's binary header
     * encoding instead of the client's JSON default, unless chosen from outside
     * (-Drocketmq.serialize.type, ROCKETMQ_SERIALIZE_TYPE). And the client's own file logger (under
     * rocketmq.client.logRoot) set up first: a remoting class that takes its logger earlier (ClientConfig
     * loads RemotingUtil) would otherwise get logback's console one and write to our stdout.
     */
    static void prepareClient() {
        if (System.getProperty(RemotingCommand.SERIALIZE_TYPE_PROPERTY) == null
            && System.getenv(RemotingCommand.SERIALIZE_TYPE_ENV) == null) {
            System.setProperty(RemotingCommand.SERIALIZE_TYPE_PROPERTY, SerializeType.ROCKETMQ.name());
        }
        ClientLogger.getLog();
    }

    /** A client instance name of its own (the client id is ip@instanceName), as the official tools make one. */
    static String instanceName(String prefix) {
        String jvm = ManagementFactory.getRuntimeMXBean().getName();
        int at = jvm.indexOf('@');
        return prefix + "-" + (at > 0 ? jvm.substring(0, at) : Long.toString(System.currentTimeMillis()));
    }

    void requestStop() {
        stop.countDown();
    }

    boolean stopping() {
        return stop.getCount() == 0;
    }

    /** Waits up to `ms` (forever when ms &lt; 0) for a stop; true when one was asked for. */
    boolean awaitStop(long ms) throws InterruptedException {
        if (ms < 0) {
            stop.await();
            return true;
        }
        return stop.await(ms, TimeUnit.MILLISECONDS);
    }

    /** Runs `task` every intervalMs on one daemon thread until the run ends. */
    void every(long intervalMs, Runnable task) {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name + "-report");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleAtFixedRate(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                System.err.println(name + ": report failed: " + oneLine(e));
            }
        }, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    void stopTimer() {
        ScheduledExecutorService t = timer;
        if (t != null) {
            t.shutdownNow();
            try {
                t.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One stdout line; numbers in the C locale, as the other tool prints them. */
    static void line(String format, Object... args) {
        synchronized (OUT) {
            OUT.print(String.format(Locale.ROOT, format, args));
            OUT.print('\n');
            OUT.flush();
        }
    }

    /** " after a 5 s warm-up" for the summary's first line, or nothing. */
    static String warmupText(long warmupMs) {
        return warmupMs > 0 ? " after a " + decimal(warmupMs / 1000.0) + " s warm-up" : "";
    }

    /**
     * Writes the summary object to `jsonFile`, when given. Values are strings, booleans, integral
     * numbers, or doubles (written with at most three decimals; a non-finite one as 0).
     */
    static void summary(Map<String, Object> summary, String jsonFile) throws IOException {
        if (jsonFile != null) {
            Files.write(Paths.get(jsonFile), (json(summary) + "\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    static String json(Map<String, Object> object) {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, Object> e : object.entrySet()) {
            if (sb.length() > 1) {
                sb.append(',');
            }
            sb.append(Json.compact(e.getKey())).append(':');
            Object v = e.getValue();
            if (v instanceof Double) {
                sb.append(decimal((Double) v));
            } else {
                sb.append(Json.compact(v));
            }
        }
        return sb.append('}').toString();
    }

    private static String decimal(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return "0";
        }
        return BigDecimal.valueOf(d).setScale(3, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }
}
