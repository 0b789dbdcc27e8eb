// Sends and consumes over TLS. `npm start` serves TLS and plain clients on the same port
// (tls.server.mode=permissive, upstream's default, with a self-signed test certificate), so this runs
// against it as is. With ACL on the broker, give an account in RMQ_ACCESS_KEY / RMQ_SECRET_KEY and
// every request is signed. Run it against `npm start` (or set NAMESRV_ADDR):
//
//   node examples/tls.mjs
import { readFileSync } from 'node:fs';
import { createProducer, createPushConsumer } from 'rocketmq-ts';

const namesrvAddr = process.env.NAMESRV_ADDR ?? '127.0.0.1:9876';
const topic = 'ExampleTls';
const accessKey = process.env.RMQ_ACCESS_KEY;
const secretKey = process.env.RMQ_SECRET_KEY;
const ca = process.env.RMQ_TLS_CA;
const security = {
  // `true` verifies the server's certificate against the system CAs, `{ ca }` against yours. The
  // self-signed test certificate of `npm start` verifies against neither: without RMQ_TLS_CA (a PEM
  // file) this example only encrypts, as upstream's client does by default.
  tls: ca ? { ca: readFileSync(ca) } : { rejectUnauthorized: false },
  ...(accessKey && secretKey ? { credentials: { accessKey, secretKey } } : {}),
};

const producer = createProducer({ namesrvAddr, producerGroup: 'example_tls_producer', ...security });
await producer.start();
const body = `sent over TLS at ${new Date().toISOString()}`;
try {
  const r = await producer.send({ topic, body });
  console.log(`sent ${r.msgId} over TLS`);
} finally {
  await producer.shutdown();
}

const consumer = createPushConsumer({
  namesrvAddr,
  consumerGroup: 'example_tls_consumer',
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  ...security,
});
consumer.subscribe(topic, '*');
const received = new Promise((resolve) => {
  consumer.registerMessageListener({
    type: 'concurrently',
    async consumeMessage(msgs) {
      for (const m of msgs) if (m.body.toString() === body) resolve(m.msgId);
      return 'CONSUME_SUCCESS';
    },
  });
});
await consumer.start();
const timeout = setTimeout(() => {
  console.error('nothing arrived within 30 s');
  process.exit(1);
}, 30_000);
console.log(`received ${await received} over TLS`);
clearTimeout(timeout);
await consumer.shutdown();
