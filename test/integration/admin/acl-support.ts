/**
 * A cluster whose broker has aclEnable, for the admin and dashboard ACL tests: its plain_acl.yml in a
 * temp ROCKETMQ_HOME gives one admin account (adminUser1) and one plain account (plainUser1).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientOptions } from '../../../src/client/client-config.js';
import { quiet, startCluster, type TestCluster, uniqueName } from '../client/support.js';

const ACL_FILE = `accounts:
  - accessKey: adminUser1
    secretKey: adminSecret1
    admin: true
  - accessKey: plainUser1
    secretKey: plainSecret1
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: SUB
`;

export interface AclCluster {
  cluster: TestCluster;
  /** The broker's plain_acl.yml, which the admin's ACL calls rewrite. */
  aclFile: string;
  /** Options for a client that signs its requests with that account (each call: an instance of its own). */
  signedAs(accessKey: string, secretKey: string): ClientOptions;
  /** Closes the cluster and removes the temp home. */
  close(): Promise<void>;
}

/** `dirPrefix` names the temp home. */
export async function startAclCluster(dirPrefix: string): Promise<AclCluster> {
  const home = mkdtempSync(join(tmpdir(), dirPrefix));
  const remove = () => rmSync(home, { recursive: true, force: true });
  const aclFile = join(home, 'conf', 'plain_acl.yml');
  try {
    mkdirSync(join(home, 'conf'));
    writeFileSync(aclFile, ACL_FILE);
    const cluster = await startCluster({ aclEnable: true, rocketmqHome: home });
    return {
      cluster,
      aclFile,
      signedAs: (accessKey, secretKey) => ({
        namesrvAddr: cluster.namesrvAddr,
        clientIP: '127.0.0.1',
        instanceName: uniqueName(accessKey),
        credentials: { accessKey, secretKey },
        logger: quiet,
      }),
      async close() {
        await cluster.close();
        remove();
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}
