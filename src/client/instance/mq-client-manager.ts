/**
 * MQClientManager: the process's client instances by client id. Producers and consumers whose
 * options give the same id (same clientIP, instanceName and unitName) share one instance; the
 * instance leaves this table when its last user shut it down.
 */
import { ValidationError } from '../../common/errors.js';
import { buildMQClientId, type ClientConfig } from '../client-config.js';
import { MQClientInstance } from './mq-client-instance.js';

const instances = new Map<string, MQClientInstance>();

/** The running (or created) instance of this config's client id; the first config wins, as upstream. */
export function getOrCreateMQClientInstance(config: ClientConfig): MQClientInstance {
  const clientId = buildMQClientId(config);
  let instance = instances.get(clientId);
  if (instance === undefined) {
    instance = new MQClientInstance(config, (gone) => {
      if (instances.get(gone.clientId) === gone) instances.delete(gone.clientId);
    });
    instances.set(clientId, instance);
    config.logger.child('instance').info('client instance created', { clientId });
  } else {
    refuseOtherCredentials(instance, config, clientId);
  }
  return instance;
}

/** Client ids with a live instance in this process. */
export function activeClientIds(): string[] {
  return [...instances.keys()];
}

/**
 * Upstream silently signs with the first client's account; a second client of the same id with another
 * account would then act as someone else, so it is refused instead.
 */
function refuseOtherCredentials(instance: MQClientInstance, config: ClientConfig, clientId: string): void {
  const hook = instance.aclHook;
  const given = config.credentials;
  const same = hook === undefined ? given === undefined : given !== undefined && hook.sameCredentials(given);
  if (!same) {
    throw new ValidationError(
      `client id ${clientId} already runs with other credentials; give this client its own instanceName`,
      -1,
    );
  }
}
