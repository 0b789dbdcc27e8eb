/**
 * Machine rooms in broker names, upstream's convention for its machine-room strategies: a broker
 * named `room@name` is deployed in `room`.
 */

/**
 * Java's `s.split("@")`: trailing empty parts are dropped (so `room@` is one part, not two), and a
 * string without `@` is its own single part.
 */
function javaSplitAt(s: string): string[] {
  const parts = s.split('@');
  if (parts.length === 1) return parts;
  let end = parts.length;
  while (end > 0 && parts[end - 1] === '') end--;
  return parts.slice(0, end);
}

/** The room of a broker named `room@name`; undefined for any other name, as upstream reads them. */
export function machineRoomOf(brokerName: string): string | undefined {
  const parts = javaSplitAt(brokerName);
  return parts.length === 2 ? parts[0] : undefined;
}
