package org.rocketmqts.interop;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * The chaos suite's push consumer on the official 4.9.8 client, twin of
 * scripts/chaos/workload-child.ts: a clustering member (concurrently or orderly) that prints one JSON
 * history line per delivery before acknowledging it, until standard input ends.
 *
 * <pre>
 * ChaosConsumer &lt;namesrvAddr&gt; &lt;topic&gt; &lt;group&gt; &lt;client&gt; &lt;instanceName&gt; &lt;orderly&gt; &lt;heartbeatMs&gt; [pollNameServerMs]
 * </pre>
 */
public final class ChaosConsumer {
    private ChaosConsumer() {
    }

    static void record(String client, List<MessageExt> msgs) {
        for (MessageExt m : msgs) {
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("kind", "consume");
            event.put("t", System.currentTimeMillis());
            event.put("client", client);
            event.put("key", m.getKeys() == null ? "" : m.getKeys());
            String shard = m.getUserProperty(ChaosProducer.SHARD_PROPERTY);
            String seq = m.getUserProperty(ChaosProducer.SEQ_PROPERTY);
            if (shard != null) {
                event.put("shard", shard);
            }
            if (seq != null) {
                event.put("seq", Long.parseLong(seq));
            }
            event.put("queueId", m.getQueueId());
            event.put("queueOffset", m.getQueueOffset());
            event.put("reconsumeTimes", m.getReconsumeTimes());
            ChaosProducer.line(event);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7 && args.length != 8) {
            System.err.println("usage: ChaosConsumer <namesrvAddr> <topic> <group> <client> <instanceName> <orderly>"
                + " <heartbeatMs> [pollNameServerMs]");
            System.exit(64);
        }
        String client = args[3];
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(args[2]);
        consumer.setNamesrvAddr(args[0]);
        consumer.setInstanceName(args[4]);
        consumer.setHeartbeatBrokerInterval(Integer.parseInt(args[6]));
        if (args.length > 7) {
            consumer.setPollNameServerInterval(Integer.parseInt(args[7]));
        }
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(args[1], "*");
        if (Boolean.parseBoolean(args[5])) {
            consumer.registerMessageListener((MessageListenerOrderly) (msgs, context) -> {
                record(client, msgs);
                return ConsumeOrderlyStatus.SUCCESS;
            });
        } else {
            consumer.registerMessageListener((MessageListenerConcurrently) (msgs, context) -> {
                record(client, msgs);
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
        }
        consumer.start();
        Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("ready", true);
        ChaosProducer.line(ready);
        ChaosProducer.awaitEndOfInput();
        consumer.shutdown();
        System.exit(0);
    }
}
