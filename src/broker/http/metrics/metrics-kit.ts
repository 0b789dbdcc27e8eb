/**
 * Metrics whose values are read when a scrape asks (prom-client collect callbacks), never pushed
 * by the hot paths: each definition names the metric and says how to read its series.
 */
import type * as PromClient from 'prom-client';

export type PromModule = typeof PromClient;
export type Labels = Record<string, string>;
/** Adds one series: its labels and value. */
export type Emit = (labels: Labels, value: number) => void;

export interface MetricsKit {
  readonly prom: PromModule;
  readonly registry: PromClient.Registry;
}

/** A gauge whose series `read` emits at each scrape (the previous scrape's series are dropped). */
export function collectedGauge(
  kit: MetricsKit,
  name: string,
  help: string,
  labelNames: readonly string[],
  read: (emit: Emit) => void,
): void {
  new kit.prom.Gauge({
    name,
    help,
    labelNames: [...labelNames],
    registers: [kit.registry],
    collect() {
      this.reset();
      read((labels, value) => this.set(labels, Number.isFinite(value) ? value : 0));
    },
  });
}

/** A counter whose running totals `read` emits at each scrape (totals kept by the broker's own stats). */
export function collectedCounter(
  kit: MetricsKit,
  name: string,
  help: string,
  labelNames: readonly string[],
  read: (emit: Emit) => void,
): void {
  new kit.prom.Counter({
    name,
    help,
    labelNames: [...labelNames],
    registers: [kit.registry],
    collect() {
      this.reset();
      read((labels, value) => this.inc(labels, Number.isFinite(value) && value > 0 ? value : 0));
    },
  });
}
