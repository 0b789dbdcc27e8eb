/**
 * rocketmq-ts: Apache RocketMQ for Node.js (clients, name server, broker), wire-compatible with the
 * official Java implementation. This entry has everything; the entries by role load less:
 * `rocketmq-ts/client` (producers, consumers, messages, errors), `rocketmq-ts/admin` (createAdmin,
 * the dashboard) and `rocketmq-ts/server` (broker, name server, startEmbedded). Nothing deeper is
 * importable: package.json's `exports` lists these four.
 */
export * from './admin/index.js';
export * from './client/index.js';
export * from './server.js';
