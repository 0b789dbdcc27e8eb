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

/** How a metric read at each scrape is declared: `read` emits its current series. */
type CollectedMetric = (
  kit: MetricsKit,
  name: string,
  help: string,
  labelNames: readonly string[],
  read: (emit: Emit) => void,
) => void;

/** What a gauge and a counter of the kit are both made of. */
function definition(kit: MetricsKit, name: string, help: string, labelNames: readonly string[]) {
  return { name, help, labelNames: [...labelNames], registers: [kit.registry] };
}

/** A gauge whose series `read` emits at each scrape (the previous scrape's series are dropped). */
export const collectedGauge: CollectedMetric = (kit, name, help, labelNames, read) => {
  new kit.prom.Gauge({
    ...definition(kit, name, help, labelNames),
    collect() {
      this.reset();
      read((labels, value) => this.set(labels, Number.isFinite(value) ? value : 0));
    },
  });
};

/** A counter whose running totals `read` emits at each scrape (totals kept by the broker's own stats). */
export const collectedCounter: CollectedMetric = (kit, name, help, labelNames, read) => {
  new kit.prom.Counter({
    ...definition(kit, name, help, labelNames),
    collect() {
      this.reset();
      read((labels, value) => this.inc(labels, Number.isFinite(value) && value > 0 ? value : 0));
    },
  });
};
