package org.rocketmqts.interop;

import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.remoting.exception.RemotingTimeoutException;
import org.apache.rocketmq.remoting.netty.NettyRemotingAbstract;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.LanguageCode;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.SerializeType;

/**
 * Sends one request with the official NettyRemotingClient and prints the response as one JSON line.
 *
 * <pre>
 * RemotingProbe addr code JSON|ROCKETMQ oneway(true|false) [key=value ...] [--body HEX] [--timeout MS]
 *               [--version N] [--language NAME]
 * </pre>
 *
 * The request's version defaults to this jar's MQVersion.CURRENT_VERSION (409 for 4.9.8), as an
 * official client sends it; --version changes it (the name server picks the route JSON form by it).
 *
 * stdout: {"code":..,"opaque":..,"flag":..,"language":..,"version":..,"remark":..,"extFields":{..},
 * "bodyHex":..,"serializeTypeCurrentRPC":..} for a response, or {"oneway":true,"sent":true}.
 * Exit 0 on any response (or a sent oneway request), 2 on timeout / connect / send failure (the
 * message goes to stdout as {"error":..,"message":..}), 64 on bad arguments.
 */
public final class RemotingProbe {
    private RemotingProbe() {
    }

    public static void main(String[] args) {
        if (args.length < 4) {
            usage("expected at least 4 arguments");
        }
        String addr = args[0];
        int code = 0;
        SerializeType st = null;
        try {
            code = Integer.parseInt(args[1]);
            st = SerializeType.valueOf(args[2]);
        } catch (IllegalArgumentException e) {
            usage("bad code or serialize type: " + e.getMessage());
        }
        if (!"true".equals(args[3]) && !"false".equals(args[3])) {
            usage("oneway must be true or false");
        }
        boolean oneway = Boolean.parseBoolean(args[3]);
        byte[] body = null;
        long timeoutMs = 5000;
        int version = MQVersion.CURRENT_VERSION;
        LanguageCode language = LanguageCode.JAVA;
        Map<String, String> ext = new LinkedHashMap<>();
        for (int i = 4; i < args.length; i++) {
            String a = args[i];
            if ("--version".equals(a) && i + 1 < args.length) {
                version = Integer.parseInt(args[++i]);
            } else if ("--language".equals(a) && i + 1 < args.length) {
                language = LanguageCode.valueOf(args[++i]);
            } else if ("--body".equals(a) && i + 1 < args.length) {
                body = Hex.parse(args[++i]);
            } else if ("--timeout".equals(a) && i + 1 < args.length) {
                timeoutMs = Long.parseLong(args[++i]);
            } else {
                int eq = a.indexOf('=');
                if (eq <= 0) {
                    usage("expected key=value, got " + a);
                }
                ext.put(a.substring(0, eq), a.substring(eq + 1));
            }
        }
        // like MQClientAPIImpl, which sets this property to its own version before any request
        System.setProperty(RemotingCommand.REMOTING_VERSION_KEY, Integer.toString(version));
        RemotingCommand request = RemotingCommand.createRequestCommand(code, null);
        request.setLanguage(language);
        for (Map.Entry<String, String> e : ext.entrySet()) {
            request.addExtField(e.getKey(), e.getValue());
        }
        request.setSerializeTypeCurrentRPC(st);
        request.setBody(body);

        NettyClientConfig config = new NettyClientConfig();
        NettyRemotingClient client = new NettyRemotingClient(config);
        int exit;
        try {
            client.start();
            if (oneway) {
                request.markOnewayRPC();
                client.invokeOneway(addr, request, timeoutMs);
                // invokeOneway returns before the encoder (on another executor) has written the frame;
                // shutting down now could drop it. The write listener releases a oneway permit, so
                // taking every permit waits exactly for the write to finish.
                if (!onewayPermits(client).tryAcquire(config.getClientOnewaySemaphoreValue(), timeoutMs,
                    TimeUnit.MILLISECONDS)) {
                    throw new RemotingTimeoutException("oneway write did not complete in " + timeoutMs + " ms");
                }
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("oneway", true);
                m.put("sent", true);
                m.put("opaque", request.getOpaque());
                ProbeOutput.line(m);
            } else {
                RemotingCommand response = client.invokeSync(addr, request, timeoutMs);
                ProbeOutput.line(ProbeOutput.command(response));
            }
            exit = 0;
        } catch (Throwable e) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("error", e.getClass().getSimpleName());
            m.put("message", String.valueOf(e.getMessage()));
            ProbeOutput.line(m);
            exit = 2;
        } finally {
            client.shutdown();
        }
        System.exit(exit);
    }

    private static Semaphore onewayPermits(NettyRemotingClient client) throws ReflectiveOperationException {
        Field f = NettyRemotingAbstract.class.getDeclaredField("semaphoreOneway");
        f.setAccessible(true);
        return (Semaphore) f.get(client);
    }

    private static void usage(String why) {
        System.err.println("RemotingProbe: " + why);
        System.err.println("usage: RemotingProbe addr code JSON|ROCKETMQ true|false [key=value ...] "
            + "[--body HEX] [--timeout MS] [--version N] [--language NAME]");
        System.exit(64);
    }
}
