package org.rocketmqts.interop.golden;

import com.alibaba.fastjson.JSON;
import java.io.File;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TimeZone;
import org.apache.rocketmq.broker.offset.ConsumerOffsetManager;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.message.MessageDecoder;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.store.CommitLog;
import org.rocketmqts.interop.Json;

/**
 * Writes test/fixtures/golden: binary fixtures produced by the official RocketMQ classes and a
 * manifest.json describing each one. Run through scripts/fixtures.mjs, which fixes TZ=UTC and
 * -Drocketmq.remoting.version=409; the output is byte-for-byte reproducible.
 *
 * Usage: GoldenFixtures <outDir>
 */
public final class GoldenFixtures {
    private GoldenFixtures() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: GoldenFixtures <outDir>");
            System.exit(64);
        }
        String version = System.getProperty(RemotingCommand.REMOTING_VERSION_KEY);
        if (!Integer.toString(MQVersion.CURRENT_VERSION).equals(version)) {
            fail("run with -D" + RemotingCommand.REMOTING_VERSION_KEY + "=" + MQVersion.CURRENT_VERSION
                + " (got " + version + ")");
        }
        if (!"UTC".equals(TimeZone.getDefault().getID())) {
            fail("run with TZ=UTC and -Duser.timezone=UTC (got " + TimeZone.getDefault().getID() + ")");
        }
        File root = new File(args[0]);
        if (!root.isDirectory() && !root.mkdirs()) {
            fail("cannot create " + root);
        }
        Out out = new Out(root);

        Map<String, Object> manifest = new LinkedHashMap<>();
        manifest.put("manifestVersion", 1);
        manifest.put("generator", "interop/src/main/java/org/rocketmqts/interop/golden/GoldenFixtures.java");
        manifest.put("upstreamVersion", "4.9.8");
        manifest.put("mqVersion", MQVersion.getVersionDesc(MQVersion.CURRENT_VERSION));
        manifest.put("remotingVersion", MQVersion.CURRENT_VERSION);
        Map<String, Object> jars = new LinkedHashMap<>();
        for (Class<?> c : new Class<?>[] {RemotingCommand.class, MessageDecoder.class, CommitLog.class,
            ConsumerOffsetManager.class, JSON.class}) {
            String loc = c.getProtectionDomain().getCodeSource().getLocation().getPath();
            jars.put(c.getSimpleName(), loc.substring(loc.lastIndexOf('/') + 1));
        }
        manifest.put("jars", jars);
        manifest.put("jdk", System.getProperty("java.version"));
        manifest.put("timeZone", TimeZone.getDefault().getID());
        manifest.put("conventions", java.util.Arrays.asList(
            "All paths are relative to this manifest.",
            "Numbers that may exceed 2^53 (Java long) are decimal strings; ints are JSON numbers.",
            "Hex is lower case; ids produced by UtilAll.bytes2string are upper case as Java makes them.",
            "Maps Java keeps as HashMap are shown sorted by key unless a field says it lists wire order."));

        manifest.put("commands", new CommandFixtures(out).run());
        manifest.put("messages", new MessageFixtures(out).run());
        manifest.put("messageIds", new IdFixtures().run());
        manifest.put("hashes", new HashFixtures().run());
        manifest.put("properties", new PropertiesFixtures().run());
        manifest.put("bodies", new BodyFixtures(out).run());
        manifest.put("allocate", new AllocateFixtures(out).run());
        manifest.put("fileCount", out.count() + 1);

        out.writeText("manifest.json", Json.pretty(manifest));
        System.out.println("golden fixtures: " + (out.count()) + " files in " + root.getPath());
    }

    private static void fail(String msg) {
        System.err.println("GoldenFixtures: " + msg);
        System.exit(2);
    }
}
