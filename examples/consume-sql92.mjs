// A push consumer with a SQL92 subscription: the broker filters on the messages' properties, so the
// consumer receives only what the expression selects. `npm start` (rmq start) has SQL92 on; a broker
// with upstream's defaults (rmq broker, the Java broker) refuses it until broker.conf says
// enablePropertyFilter=true. The example sends orders with a region and an amount, consumes the large
// EU ones, checks that nothing else arrived and leaves. Run it against `npm start` (or set NAMESRV_ADDR):
//
//   node examples/consume-sql92.mjs
import { createProducer, createPushConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'ExampleSql92';
const expression = "region = 'EU' AND amount > 100";
const DEADLINE_MS = 30_000;
const run = Date.now().toString(36);
const orders = [
  { region: 'EU', amount: 250 },
  { region: 'US', amount: 900 },
  { region: 'EU', amount: 40 },
  { region: 'EU', amount: 120 },
  { region: 'APAC', amount: 300 },
].map((order, i) => ({ ...order, key: `order-${run}-${i}` }));
const wanted = new Set(orders.filter((o) => o.region === 'EU' && o.amount > 100).map((o) => o.key));
const ours = new Set(orders.map((o) => o.key));

// Sending first creates the topic on a fresh broker, so the consumer finds its route at start.
const producer = createProducer({ namesrvAddr, producerGroup: 'example_sql92_producer' });
await producer.start();
try {
  for (const o of orders) {
    // The properties are what the expression reads; SQL92 compares numbers as numbers.
    await producer.send({
      topic,
      body: `order ${o.key}: ${o.amount} in ${o.region}`,
      keys: o.key,
      properties: { region: o.region, amount: String(o.amount) },
    });
  }
  console.log(`sent ${orders.length} orders to ${topic}`);
} finally {
  await producer.shutdown();
}

const unexpected = [];
let allDone;
const done = new Promise((resolve) => {
  allDone = resolve;
});
const consumer = createPushConsumer({
  namesrvAddr,
  consumerGroup: 'example_sql92_group',
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
});
consumer.subscribe(topic, { type: 'SQL92', expression });
consumer.registerMessageListener({
  type: 'concurrently',
  async consumeMessage(msgs) {
    for (const msg of msgs) {
      if (!ours.has(msg.keys)) continue; // left by an earlier run
      if (!wanted.delete(msg.keys)) unexpected.push(msg.keys);
      console.log(`got ${msg.keys}: region ${msg.getProperty('region')}, amount ${msg.getProperty('amount')}`);
    }
    if (wanted.size === 0) allDone();
    return 'CONSUME_SUCCESS';
  },
});
try {
  await consumer.start();
} catch (error) {
  console.log(`the broker refused the subscription (${error.message})`);
  console.log('set enablePropertyFilter=true in its broker.conf, or run `npm start`, which has it on');
  process.exit(1);
}

let timer;
const finished = await Promise.race([
  done.then(() => true),
  new Promise((resolve) => {
    timer = setTimeout(resolve, DEADLINE_MS, false);
  }),
]);
clearTimeout(timer);
await consumer.shutdown();
if (!finished) {
  console.log(`gave up after ${DEADLINE_MS / 1000} s; not consumed: ${[...wanted].join(', ')}`);
  process.exitCode = 1;
} else if (unexpected.length > 0) {
  console.log(`the filter let through: ${unexpected.join(', ')}`);
  process.exitCode = 1;
} else {
  console.log(`consumed exactly the orders matching ${expression}`);
}
