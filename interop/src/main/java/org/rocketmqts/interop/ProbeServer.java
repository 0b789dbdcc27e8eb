package org.rocketmqts.interop;

import io.netty.channel.ChannelHandlerContext;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.protocol.ResponseCode;
import org.apache.rocketmq.remoting.netty.NettyRemotingServer;
import org.apache.rocketmq.remoting.netty.NettyRequestProcessor;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;

/**
 * An official NettyRemotingServer with one default processor that records every request.
 *
 * <pre>
 * ProbeServer [port]      (default 0 = ephemeral)
 * </pre>
 *
 * stdout: first {"port":N}, then one line per request: the decoded command (code, opaque, flag,
 * language, version, remark, extFields, bodyHex, serializeTypeCurrentRPC) plus "oneway". Every
 * request gets a SUCCESS response with extFields echo=&lt;code&gt; and remark "probe-server ok"
 * (NettyRemotingAbstract drops it for oneway requests and copies the request's serialize type).
 * Runs until stdin reaches end of file, then shuts down and exits 0.
 */
public final class ProbeServer {
    public static final String REMARK = "probe-server ok";

    private ProbeServer() {
    }

    public static void main(String[] args) throws Exception {
        // answer with this jar's version like a broker or name server does (BrokerStartup sets it too)
        System.setProperty(RemotingCommand.REMOTING_VERSION_KEY, Integer.toString(MQVersion.CURRENT_VERSION));
        NettyServerConfig config = new NettyServerConfig();
        config.setListenPort(args.length > 0 ? Integer.parseInt(args[0]) : 0);
        NettyRemotingServer server = new NettyRemotingServer(config);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        server.registerDefaultProcessor(new NettyRequestProcessor() {
            @Override
            public RemotingCommand processRequest(ChannelHandlerContext ctx, RemotingCommand request) {
                Map<String, Object> line = new LinkedHashMap<>();
                line.put("request", ProbeOutput.command(request));
                line.put("oneway", request.isOnewayRPC());
                ProbeOutput.line(line);
                RemotingCommand response = RemotingCommand.createResponseCommand(ResponseCode.SUCCESS, REMARK);
                response.addExtField("echo", Integer.toString(request.getCode()));
                return response;
            }

            @Override
            public boolean rejectRequest() {
                return false;
            }
        }, pool);
        server.start();
        Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("port", server.localListenPort());
        ProbeOutput.line(ready);

        InputStream in = System.in;
        byte[] buf = new byte[256];
        try {
            while (in.read(buf) >= 0) {
                // keep running until the parent closes our stdin
            }
        } catch (IOException ignored) {
            // a broken stdin means the parent is gone: stop too
        }
        server.shutdown();
        pool.shutdownNow();
        System.exit(0);
    }
}
