/**
 * The broker's Prometheus registry: its runtime info, per topic and per group figures, POP and timer figures (names close
 * to rocketmq-exporter's, so its Grafana dashboards need few changes) and prom-client's process
 * metrics (event-loop delay, heap, RSS, GC). Every series carries `cluster` and `broker`, the
 * broker-wide ones `brokerIP` too (the exporter's label names). Values are read at scrape time.
 */
import type * as PromClient from 'prom-client';
import type { BrokerContext } from '../processor/broker-context.js';
import { registerGroupMetrics } from './metrics/group-metrics.js';
import type { PromModule } from './metrics/metrics-kit.js';
import { registerPopMetrics } from './metrics/pop-metrics.js';
import { registerRuntimeMetrics } from './metrics/runtime-metrics.js';
import { registerTopicMetrics } from './metrics/topic-metrics.js';

export function createBrokerRegistry(prom: PromModule, broker: BrokerContext): PromClient.Registry {
  const registry = new prom.Registry();
  registry.setDefaultLabels({
    cluster: broker.config.brokerClusterName,
    broker: broker.config.brokerName,
  });
  const kit = { prom, registry };
  registerRuntimeMetrics(kit, broker);
  registerTopicMetrics(kit, broker);
  registerGroupMetrics(kit, broker);
  registerPopMetrics(kit, broker);
  prom.collectDefaultMetrics({ register: registry });
  return registry;
}
