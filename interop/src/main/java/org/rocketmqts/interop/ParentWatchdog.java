package org.rocketmqts.interop;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * Runs another main class (e.g. the official NamesrvStartup or BrokerStartup, unchanged) and exits
 * the JVM when standard input reaches end of file. The test harness keeps a pipe to our stdin, so
 * when the Node process goes away for any reason, even SIGKILL, the server shuts down through its
 * normal shutdown hooks instead of lingering.
 *
 * <pre>
 * ParentWatchdog &lt;main class&gt; [args...]
 * </pre>
 */
public final class ParentWatchdog {
    private ParentWatchdog() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: ParentWatchdog <main class> [args...]");
            System.exit(64);
        }
        Thread watchdog = new Thread(() -> {
            InputStream in = System.in;
            byte[] buf = new byte[64];
            try {
                while (in.read(buf) >= 0) {
                    // nothing to do: we only wait for the parent to close the pipe
                }
            } catch (IOException ignored) {
                // same meaning as end of file
            }
            System.exit(0);
        }, "parent-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        Method main = Class.forName(args[0]).getMethod("main", String[].class);
        main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    }
}
