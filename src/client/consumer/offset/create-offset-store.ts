/** The offset store a consumer gets: the brokers for a clustering group, a local file for broadcasting. */
import type { MQClientInstance } from '../../instance/mq-client-instance.js';
import { LocalFileOffsetStore } from './local-file-offset-store.js';
import type { OffsetStore } from './offset-store.js';
import { RemoteBrokerOffsetStore } from './remote-broker-offset-store.js';

export function createOffsetStore(
  kind: 'remote' | 'local',
  context: { instance: MQClientInstance; group: string; dir: string | undefined },
): OffsetStore {
  const { instance, group, dir } = context;
  return kind === 'local'
    ? new LocalFileOffsetStore({
        clientId: instance.clientId,
        groupName: group,
        logger: instance.logger,
        localOffsetStoreDir: dir,
      })
    : new RemoteBrokerOffsetStore(instance, group);
}
