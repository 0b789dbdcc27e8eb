/** GET /api/cluster: every broker with its version, TPS and disk use, from its runtime info. */

import { type ApiContext, brokersOf } from './api-context.js';
import { errorText } from './api-errors.js';

export interface BrokerSummary {
  cluster: string;
  brokerName: string;
  brokerId: number;
  addr: string;
  version: string | null;
  /** Messages put per second over the last 10 s (the first figure of upstream's `putTps`). */
  putTps: number | null;
  /** Messages handed to consumers per second over the last 10 s (`getTransferedTps`). */
  getTps: number | null;
  /** Share of the commit log's disk in use, 0..1 (`commitLogDiskRatio`). */
  diskRatio: number | null;
  msgPutTotalTodayNow: number | null;
  msgGetTotalTodayNow: number | null;
  bootTimestamp: number | null;
  error: string | null;
}

function firstNumber(value: string | undefined): number | null {
  if (value === undefined) return null;
  const n = Number(value.trim().split(/\s+/)[0]);
  return Number.isFinite(n) ? n : null;
}

export function summarize(
  broker: { cluster: string; brokerName: string; brokerId: number; addr: string },
  info: Map<string, string> | undefined,
  error: unknown,
): BrokerSummary {
  return {
    ...broker,
    version: info?.get('brokerVersionDesc') ?? null,
    putTps: firstNumber(info?.get('putTps')),
    getTps: firstNumber(info?.get('getTransferedTps')),
    diskRatio: firstNumber(info?.get('commitLogDiskRatio')),
    msgPutTotalTodayNow: firstNumber(info?.get('msgPutTotalTodayNow')),
    msgGetTotalTodayNow: firstNumber(info?.get('msgGetTotalTodayNow')),
    bootTimestamp: firstNumber(info?.get('bootTimestamp')),
    error: error === undefined ? null : errorText(error),
  };
}

export async function brokerSummaries(ctx: ApiContext): Promise<BrokerSummary[]> {
  const info = await ctx.admin.examineBrokerClusterInfo();
  return Promise.all(
    brokersOf(info).map(async (b) => {
      try {
        return summarize(b, await ctx.admin.fetchBrokerRuntimeStats(b.addr), undefined);
      } catch (error) {
        return summarize(b, undefined, error);
      }
    }),
  );
}

export async function getCluster(ctx: ApiContext): Promise<unknown> {
  return {
    namesrvAddr: ctx.admin.getNameServerAddressList(),
    brokers: await brokerSummaries(ctx),
  };
}
