package org.rocketmqts.interop;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;

/** One-JSON-object-per-line output shared by RemotingProbe and ProbeServer. */
final class ProbeOutput {
    private static final PrintStream OUT;

    static {
        try {
            OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private ProbeOutput() {
    }

    static synchronized void line(Map<String, Object> value) {
        OUT.println(Json.compact(value));
        OUT.flush();
    }

    static Map<String, Object> command(RemotingCommand c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("code", c.getCode());
        m.put("opaque", c.getOpaque());
        m.put("flag", c.getFlag());
        m.put("language", c.getLanguage() == null ? null : c.getLanguage().name());
        m.put("version", c.getVersion());
        m.put("remark", c.getRemark());
        m.put("extFields", c.getExtFields() == null ? null : new TreeMap<>(c.getExtFields()));
        m.put("bodyHex", Hex.of(c.getBody()));
        m.put("serializeTypeCurrentRPC", c.getSerializeTypeCurrentRPC() == null
            ? null : c.getSerializeTypeCurrentRPC().name());
        return m;
    }
}
