/**
 * The dashboard figures of docs/operations-dashboard.md: API latency and page load (headless
 * Chromium, when /usr/bin/chromium or $CHROMIUM_PATH is there) over an in-process broker holding
 * 1,000 topics and 200 consumer groups with offsets.
 * Run after a build: `node build/scripts/bench-dashboard.js [topics] [groups]`.
 */
import { existsSync } from 'node:fs';
import { createDashboard } from '../src/admin/dashboard/index.js';
import { createAdmin } from '../src/admin/index.js';
import { startHttpServer } from '../src/cli/dashboard-server.js';
import { createLogger } from '../src/common/logger.js';
import { MessageQueue } from '../src/common/message/message-queue.js';
import { startEmbedded } from '../src/embedded/embedded.js';

const TOPICS = Number(process.argv[2] ?? 1000);
const GROUPS = Number(process.argv[3] ?? 200);
const QUEUES = 8;
const RUNS = 20;
const PAGE_RUNS = 5;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function stats(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
  return `median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${(s[s.length - 1] ?? 0).toFixed(1)} ms`;
}

const quiet = createLogger('bench', { level: 'silent' });
const embedded = await startEmbedded({ logger: quiet });
const admin = createAdmin({ namesrvAddr: embedded.namesrvAddr, clientIP: '127.0.0.1', logger: quiet });
await admin.start();
const setupStart = performance.now();
const topics = Array.from({ length: TOPICS }, (_, i) => `BenchTopic${String(i).padStart(4, '0')}`);
for (let i = 0; i < topics.length; i += 50) {
  await Promise.all(
    topics.slice(i, i + 50).map((topicName) =>
      admin.createAndUpdateTopicConfig(embedded.brokerAddr, {
        topicName,
        readQueueNums: QUEUES,
        writeQueueNums: QUEUES,
      }),
    ),
  );
}
const groups = Array.from({ length: GROUPS }, (_, i) => `BenchGroup${String(i).padStart(3, '0')}`);
for (const [i, groupName] of groups.entries()) {
  await admin.createAndUpdateSubscriptionGroupConfig(embedded.brokerAddr, { groupName });
  const topic = topics[i % topics.length] as string;
  for (let q = 0; q < QUEUES; q++)
    await admin.updateConsumeOffset(
      embedded.brokerAddr,
      groupName,
      new MessageQueue(topic, 'broker-a', q),
      0,
    );
}
process.stdout.write(
  `setup: ${TOPICS} topics x ${QUEUES} queues, ${GROUPS} groups in ${((performance.now() - setupStart) / 1000).toFixed(1)} s\n`,
);

const dashboard = createDashboard({
  namesrvAddr: embedded.namesrvAddr,
  clientIP: '127.0.0.1',
  logger: quiet,
});
const server = await startHttpServer([dashboard], { port: 0 });
const base = server.url.replace(/\/$/, '');

async function timeRoute(path: string): Promise<void> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < RUNS + 3; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}${path}`);
    const body = await res.arrayBuffer();
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${Buffer.from(body).toString('utf8')}`);
    if (i >= 3) ms.push(performance.now() - t0);
    bytes = body.byteLength;
  }
  process.stdout.write(`GET ${path}: ${stats(ms)} (${(bytes / 1024).toFixed(0)} KiB)\n`);
}

try {
  await timeRoute('/api/cluster');
  await timeRoute('/api/topics');
  await timeRoute('/api/groups');
  await timeRoute(`/api/topic?topic=${topics[0]}`);
  await timeRoute(`/api/group?group=${groups[0]}`);
  await timeRoute('/api/tps');
  await timeRoute('/');

  if (existsSync(CHROMIUM)) {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox'],
    });
    try {
      const page = await browser.newPage();
      for (const [hash, selector, min] of [
        ['#/cluster', '#brokers tbody tr', 1],
        ['#/topics?all=1', '#topics tbody tr', TOPICS],
        ['#/groups', '#groups tbody tr', GROUPS],
      ] as const) {
        const ms: number[] = [];
        for (let i = 0; i < PAGE_RUNS + 1; i++) {
          await page.goto('about:blank');
          const t0 = performance.now();
          await page.goto(`${base}/${hash}`);
          // A string: this file is compiled without the DOM's types.
          await page.waitForFunction(
            `document.querySelectorAll(${JSON.stringify(selector)}).length >= ${min}`,
            undefined,
            {
              polling: 'raf',
              timeout: 30_000,
            },
          );
          if (i > 0) ms.push(performance.now() - t0);
        }
        process.stdout.write(`page ${hash} (${min}+ rows shown): ${stats(ms)}\n`);
      }
    } finally {
      await browser.close();
    }
  } else {
    process.stdout.write(`page load: skipped, no Chromium at ${CHROMIUM}\n`);
  }
} finally {
  await server.close();
  await dashboard.close();
  await admin.shutdown();
  await embedded.close();
}
