package org.rocketmqts.interop;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.tools.command.MQAdminStartup;

/**
 * The official mqadmin (MQAdminStartup.main0, unchanged) running one command per input line in a
 * single JVM, so a test that compares dozens of commands pays for one JVM start instead of one per
 * command. Each input line holds one command's arguments separated by tabs; for each, one JSON line
 * {@code {"seq":n,"stdout":"…","stderr":"…","ms":"…"}} is printed with what the command wrote while
 * it ran. End of input ends the JVM (so a killed test runner leaves nothing behind). Every command
 * gets fresh sub-command objects, as a new mqadmin process would: some keep their admin client in a
 * field and would reuse it, shut down, the second time.
 *
 * <pre>
 * MqadminSession   (ROCKETMQ_HOME or -Drocketmq.home.dir with conf/logback_tools.xml, as mqadmin)
 * </pre>
 */
public final class MqadminSession {
    private MqadminSession() {
    }

    public static void main(String[] args) throws Exception {
        // MQAdminStartup keeps its sub-commands in a protected static list it only ever appends to.
        Field commands = MQAdminStartup.class.getDeclaredField("subCommandList");
        commands.setAccessible(true);
        List<?> subCommands = (List<?>) commands.get(null);
        PrintStream realOut = System.out;
        PrintStream realErr = System.err;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        realOut.println(Json.compact(Collections.singletonMap("ready", Boolean.TRUE)));
        realOut.flush();
        long seq = 0;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.isEmpty()) {
                continue;
            }
            String[] command = line.split("\t", -1);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            long start = System.currentTimeMillis();
            System.setOut(new PrintStream(out, true, "UTF-8"));
            System.setErr(new PrintStream(err, true, "UTF-8"));
            try {
                subCommands.clear();
                MQAdminStartup.main0(command, null);
            } catch (Throwable t) {
                t.printStackTrace(System.err);
            } finally {
                System.out.flush();
                System.err.flush();
                System.setOut(realOut);
                System.setErr(realErr);
            }
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("seq", seq++);
            result.put("stdout", new String(out.toByteArray(), StandardCharsets.UTF_8));
            result.put("stderr", new String(err.toByteArray(), StandardCharsets.UTF_8));
            result.put("ms", Long.toString(System.currentTimeMillis() - start));
            realOut.println(Json.compact(result));
            realOut.flush();
        }
        System.exit(0);
    }
}
