/**
 * Namespaces (upstream `NamespaceUtil`): a client configured with a namespace `ns` sends to topic
 * `ns%Topic` and uses group `ns%Group`; retry and dead-letter topics keep their prefix in front
 * (`%RETRY%ns%Group`). System topics and `CID_RMQ_SYS_*` groups are never wrapped.
 */
import { MixAll } from '../common/constants.js';
import { isSystemTopic } from '../common/validators.js';

export const NAMESPACE_SEPARATOR = '%';

export function isRetryTopic(resource: string): boolean {
  return resource.trim().length > 0 && resource.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX);
}

export function isDLQTopic(resource: string): boolean {
  return resource.trim().length > 0 && resource.startsWith(MixAll.DLQ_GROUP_TOPIC_PREFIX);
}

function isSystemResource(resource: string): boolean {
  return resource.length > 0 && (isSystemTopic(resource) || MixAll.isSysConsumerGroup(resource));
}

function withoutRetryAndDLQ(resource: string): string {
  if (isRetryTopic(resource)) return resource.slice(MixAll.RETRY_GROUP_TOPIC_PREFIX.length);
  if (isDLQTopic(resource)) return resource.slice(MixAll.DLQ_GROUP_TOPIC_PREFIX.length);
  return resource;
}

function prefixOf(resource: string): string {
  if (isRetryTopic(resource)) return MixAll.RETRY_GROUP_TOPIC_PREFIX;
  if (isDLQTopic(resource)) return MixAll.DLQ_GROUP_TOPIC_PREFIX;
  return '';
}

export function isAlreadyWithNamespace(resource: string, namespace: string | undefined): boolean {
  if (!namespace || resource.length === 0 || isSystemResource(resource)) return false;
  return withoutRetryAndDLQ(resource).startsWith(namespace + NAMESPACE_SEPARATOR);
}

/** `wrapNamespace(namespace, resource)`: `Topic` -> `ns%Topic`, `%RETRY%G` -> `%RETRY%ns%G`. */
export function wrapNamespace(namespace: string | undefined, resource: string): string {
  if (!namespace || resource.length === 0) return resource;
  if (isSystemResource(resource) || isAlreadyWithNamespace(resource, namespace)) return resource;
  return prefixOf(resource) + namespace + NAMESPACE_SEPARATOR + withoutRetryAndDLQ(resource);
}

/** `withoutNamespace(resource)`: strips whatever namespace the resource carries. */
export function stripNamespace(resource: string): string {
  if (resource.length === 0 || isSystemResource(resource)) return resource;
  const bare = withoutRetryAndDLQ(resource);
  const index = bare.indexOf(NAMESPACE_SEPARATOR);
  return index > 0 ? prefixOf(resource) + bare.slice(index + 1) : resource;
}

/** `withoutNamespace(resource, namespace)`: strips `namespace` only, leaving other namespaces. */
export function withoutNamespace(resource: string, namespace: string | undefined): string {
  if (!namespace || resource.length === 0) return resource;
  return withoutRetryAndDLQ(resource).startsWith(namespace + NAMESPACE_SEPARATOR)
    ? stripNamespace(resource)
    : resource;
}

/** `%RETRY%` + the wrapped group. */
export function wrapNamespaceAndRetry(namespace: string | undefined, consumerGroup: string): string {
  return MixAll.RETRY_GROUP_TOPIC_PREFIX + wrapNamespace(namespace, consumerGroup);
}
