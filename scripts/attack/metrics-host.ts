/**
 * metrics-host: a page of another site whose name was rebound to 127.0.0.1 (DNS rebinding) reads
 * the broker's /metrics, which names every topic, DENY ones included. Held when a request naming
 * another Host is refused and carries no topic name, while 127.0.0.1 is still served.
 */
import { request } from 'node:http';
import { createTopicConfig } from '../../src/common/protocol/topic-config.js';
import { startTarget, verdict } from './acl-attack-support.js';
import type { AttackClass } from './attack-class.js';

const NAME = 'metrics-host';
const TOPIC = 'AttackSecretTopicName';

function get(port: number, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/metrics', headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', reject);
    req.end();
  });
}

export const metricsHost: AttackClass = {
  name: NAME,
  async run() {
    const target = await startTarget(NAME, { metricsPort: 0 });
    try {
      target.broker.topicConfigManager.updateTopicConfig(createTopicConfig(TOPIC));
      const port = target.broker.http.metricsServer?.address?.port as number;
      const rebound = await get(port, `rebound.attacker.example:${port}`);
      const own = await get(port, `127.0.0.1:${port}`);
      return [
        verdict(
          NAME,
          'GET /metrics with Host rebound.attacker.example',
          rebound.status === 403 && !rebound.body.includes(TOPIC),
          `${rebound.status}${rebound.body.includes(TOPIC) ? ', topic names served' : ''}; 127.0.0.1: ${own.status}`,
        ),
      ];
    } finally {
      await target.close();
    }
  },
};
