/**
 * The lines the bench tools print and the JSON summaries they write. The interval and [Complete]
 * lines keep upstream's benchmark printf formats word for word (scripts compare them with the Java
 * load generator's), with our percentiles appended; everything here is a pure function of figures.
 */

/** Java's `%<width>.<digits>f`: right-aligned, and NaN (0/0, no send in the interval) as Java prints it. */
export function javaFixed(value: number, width = 7, digits = 3): string {
  let text: string;
  if (Number.isNaN(value)) text = 'NaN';
  else if (value === Number.POSITIVE_INFINITY) text = 'Infinity';
  else if (value === Number.NEGATIVE_INFINITY) text = '-Infinity';
  else text = value.toFixed(digits);
  return text.padStart(width);
}

/** A latency percentile: milliseconds with microsecond digits. */
export function ms3(value: number): string {
  return value.toFixed(3);
}

/** Rounded to 3 decimals, for JSON. */
export function round3(value: number): number {
  return Number.isFinite(value) ? Math.round(value * 1000) / 1000 : 0;
}

/** Java's `(long)` of a rate: truncated toward zero, 0 for NaN. */
export function javaLong(value: number): number {
  return Number.isFinite(value) ? Math.trunc(value) : 0;
}

export interface ProducerInterval {
  /** Epoch ms (upstream prints System.currentTimeMillis()). */
  readonly nowMs: number;
  /** Messages per second over the interval. */
  readonly sendTps: number;
  /** Largest send RT since the start, ms (upstream never resets it). */
  readonly maxRtMs: number;
  /** Mean send RT over the interval, ms; NaN when nothing was sent. */
  readonly avgRtMs: number;
  /** Failed sends since the start (upstream prints the running totals). */
  readonly sendFailed: number;
  readonly responseFailed: number;
  /** Percentiles of the interval's send RTs, ms. */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
}

function producerFigures(f: Omit<ProducerInterval, 'nowMs'>): string {
  return (
    `Send TPS: ${javaLong(f.sendTps)} Max RT(ms): ${Math.round(f.maxRtMs)} ` +
    `Average RT(ms): ${javaFixed(f.avgRtMs)} Send Failed: ${f.sendFailed} Response Failed: ${f.responseFailed} ` +
    `p50(ms): ${ms3(f.p50Ms)} p99(ms): ${ms3(f.p99Ms)} p99.9(ms): ${ms3(f.p999Ms)}`
  );
}

/** Upstream Producer's interval line plus p50/p99/p99.9. */
export function producerIntervalLine(f: ProducerInterval): string {
  return `Current Time: ${f.nowMs} ${producerFigures(f)}`;
}

/** Upstream Producer's closing line (Send Total: every message attempted) plus the percentiles. */
export function producerCompleteLine(s: ProducerSummary, failedMessages: number): string {
  return `[Complete] Send Total: ${s.messages + failedMessages} ${producerFigures({
    sendTps: s.tps,
    maxRtMs: s.maxRtMs,
    avgRtMs: s.sends === 0 ? Number.NaN : s.avgRtMs,
    sendFailed: s.sendFailed,
    responseFailed: s.responseFailed,
    p50Ms: s.p50Ms,
    p99Ms: s.p99Ms,
    p999Ms: s.p999Ms,
  })}`;
}

export interface ConsumerInterval {
  readonly nowMs: number;
  /** Messages received per second over the interval (failed ones included, as upstream). */
  readonly tps: number;
  /** Messages answered RECONSUME_LATER in the interval. */
  readonly fail: number;
  /** Means over the interval, ms; NaN when nothing arrived. */
  readonly avgB2CMs: number;
  readonly avgS2CMs: number;
  /** Largest in the interval (upstream resets them at each print), ms. */
  readonly maxB2CMs: number;
  readonly maxS2CMs: number;
  /** p99 of the interval's store-to-consume latency, ms. */
  readonly p99S2CMs: number;
}

/** Upstream Consumer's interval line plus p99(S2C). */
export function consumerIntervalLine(f: ConsumerInterval): string {
  return (
    `Current Time: ${f.nowMs} TPS: ${javaLong(f.tps)} FAIL: ${f.fail} ` +
    `AVG(B2C) RT(ms): ${javaFixed(f.avgB2CMs)} AVG(S2C) RT(ms): ${javaFixed(f.avgS2CMs)} ` +
    `MAX(B2C) RT(ms): ${Math.round(f.maxB2CMs)} MAX(S2C) RT(ms): ${Math.round(f.maxS2CMs)} ` +
    `p99(S2C)(ms): ${ms3(f.p99S2CMs)}`
  );
}

/** The `--json` object of `rmq bench producer` (numbers in ms and per second). */
export interface ProducerSummary {
  readonly tool: 'rmq';
  readonly role: 'producer';
  readonly topic: string;
  readonly threads: number;
  readonly inFlight: number;
  readonly messageSize: number;
  readonly batchSize: number;
  readonly measuredMs: number;
  /** Successful send calls. */
  readonly sends: number;
  /** Successful messages (a batch's messages each count). */
  readonly messages: number;
  /** Failed send calls: the client gave up (upstream's RemotingException, MQClientException). */
  readonly sendFailed: number;
  /** Failed send calls: a broker answered with an error (upstream's MQBrokerException). */
  readonly responseFailed: number;
  /** Messages per second over measuredMs. */
  readonly tps: number;
  /** Send calls per second over measuredMs. */
  readonly sendTps: number;
  readonly avgRtMs: number;
  readonly maxRtMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
}

/** The `--json` object of `rmq bench consumer`. */
export interface ConsumerSummary {
  readonly tool: 'rmq';
  readonly role: 'consumer';
  readonly topic: string;
  readonly group: string;
  readonly measuredMs: number;
  /** Messages received (failed ones included). */
  readonly messages: number;
  /** Messages answered RECONSUME_LATER. */
  readonly failed: number;
  readonly tps: number;
  readonly avgB2CMs: number;
  readonly avgS2CMs: number;
  readonly maxB2CMs: number;
  readonly maxS2CMs: number;
  readonly p99S2CMs: number;
}

/** The human summary after [Complete]. */
export function producerSummaryText(s: ProducerSummary, warmupS: number): string {
  const batch = s.batchSize > 1 ? ` (${s.sends} sends of ${s.batchSize})` : '';
  const warmup = warmupS > 0 ? ` after a ${warmupS} s warm-up` : '';
  return (
    `Summary: ${s.messages} messages${batch} in ${(s.measuredMs / 1000).toFixed(3)} s${warmup}: ` +
    `${s.tps.toFixed(1)} msg/s, ${s.sendTps.toFixed(1)} sends/s\n` +
    `  send RT (ms): avg ${ms3(s.avgRtMs)} p50 ${ms3(s.p50Ms)} p99 ${ms3(s.p99Ms)} ` +
    `p99.9 ${ms3(s.p999Ms)} max ${ms3(s.maxRtMs)}\n` +
    `  send failed ${s.sendFailed}, response failed ${s.responseFailed}\n`
  );
}

export function consumerSummaryText(s: ConsumerSummary, warmupS: number): string {
  const warmup = warmupS > 0 ? ` after a ${warmupS} s warm-up` : '';
  return (
    `Summary: ${s.messages} messages in ${(s.measuredMs / 1000).toFixed(3)} s${warmup}: ` +
    `${s.tps.toFixed(1)} msg/s, failed ${s.failed}\n` +
    `  born-to-consume (ms): avg ${ms3(s.avgB2CMs)} max ${ms3(s.maxB2CMs)}\n` +
    `  store-to-consume (ms): avg ${ms3(s.avgS2CMs)} max ${ms3(s.maxS2CMs)} p99 ${ms3(s.p99S2CMs)}\n`
  );
}

/** What the live line shows. */
export interface ProgressFigures {
  /** Seconds since the start. */
  readonly elapsedS: number;
  /** Messages sent or received since the start. */
  readonly total: number;
  /** Messages per second since the previous live line. */
  readonly ratePerS: number;
  /** Mean send RT or store-to-consume latency since the previous live line, ms; NaN when none. */
  readonly avgMs: number;
  /** Failures since the start. */
  readonly failed: number;
}

/** The live line on a terminal, rewritten in place once a second. */
export function progressLine(role: 'producer' | 'consumer', f: ProgressFigures): string {
  const what = role === 'producer' ? 'sent' : 'consumed';
  const latency = role === 'producer' ? 'RT' : 'S2C';
  const avg = Number.isNaN(f.avgMs) ? '-' : ms3(f.avgMs);
  return (
    `[${role}] ${f.elapsedS.toFixed(0)} s  ${what} ${f.total}  ${javaLong(f.ratePerS)} msg/s  ` +
    `avg ${latency} ${avg} ms  failed ${f.failed}`
  );
}
