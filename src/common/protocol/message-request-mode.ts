/**
 * MessageRequestMode (`common/.../message/MessageRequestMode.java`): how a consumer group reads a
 * topic's queues. PULL is the 4.x model (one member per queue, client-side offsets); POP lets many
 * members share a queue, the broker tracking what each holds.
 */
export const MessageRequestMode = {
  PULL: 'PULL',
  POP: 'POP',
} as const;
export type MessageRequestMode = (typeof MessageRequestMode)[keyof typeof MessageRequestMode];

/** The mode named `name`, or undefined for a name the enum does not have (fastjson reads null). */
export function parseMessageRequestMode(name: string): MessageRequestMode | undefined {
  return Object.hasOwn(MessageRequestMode, name) ? MessageRequestMode[name as MessageRequestMode] : undefined;
}
