// Administers a cluster the way mqadmin does: lists its brokers, creates a topic on every master,
// reads its route and offsets, then deletes it. Run it against `npm start` (or set NAMESRV_ADDR):
//
//   node examples/admin.mjs
import { createAdmin, createProducer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = `ExampleAdminTopic_${Date.now()}`;

const admin = createAdmin({ namesrvAddr });
await admin.start();
try {
  const cluster = await admin.examineBrokerClusterInfo();
  for (const [clusterName, brokerNames] of cluster.clusterAddrTable) {
    console.log(`cluster ${clusterName}: brokers ${brokerNames.join(', ')}`);
    for (const addr of await admin.fetchMasterAddrByClusterName(clusterName)) {
      await admin.createAndUpdateTopicConfig(addr, { topicName: topic, readQueueNums: 4, writeQueueNums: 4 });
      console.log(`created ${topic} on ${addr}`);
    }
  }

  // Something to count: a few messages through a producer.
  const producer = createProducer({ namesrvAddr, producerGroup: 'example_admin_producer' });
  await producer.start();
  try {
    for (let i = 0; i < 10; i++) await producer.send({ topic, body: `admin example ${i}` });
  } finally {
    await producer.shutdown();
  }

  const route = await admin.examineTopicRouteInfo(topic);
  console.log(`route: ${route.queueDatas.map((q) => `${q.brokerName} (${q.writeQueueNums} write queues)`).join(', ')}`);
  const stats = await admin.examineTopicStats(topic);
  let stored = 0n;
  for (const [mq, offsets] of stats.offsetTable) {
    console.log(`  queue ${mq.brokerName}/${mq.queueId}: offsets ${offsets.minOffset}..${offsets.maxOffset}`);
    stored += offsets.maxOffset - offsets.minOffset;
  }
  console.log(`${stored} messages stored`);

  for (const clusterName of cluster.clusterAddrTable.keys()) await admin.deleteTopic(topic, clusterName);
  console.log(`deleted ${topic}`);
} finally {
  await admin.shutdown();
}
