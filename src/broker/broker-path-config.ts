/** Where the broker keeps its metadata (`broker/.../BrokerPathConfigHelper.java`): `<storePathRootDir>/config/`. */
import { join } from 'node:path';

export const BrokerPathConfig = {
  topicConfigPath: (rootDir: string): string => join(rootDir, 'config', 'topics.json'),
  consumerOffsetPath: (rootDir: string): string => join(rootDir, 'config', 'consumerOffset.json'),
  subscriptionGroupPath: (rootDir: string): string => join(rootDir, 'config', 'subscriptionGroup.json'),
  consumerFilterPath: (rootDir: string): string => join(rootDir, 'config', 'consumerFilter.json'),
  messageRequestModePath: (rootDir: string): string => join(rootDir, 'config', 'messageRequestMode.json'),
} as const;
