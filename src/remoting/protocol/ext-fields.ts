/** Sets a decoded extFields entry; a peer-chosen key such as `__proto__` must stay a plain entry. */
export function setExtField(fields: Record<string, string>, key: string, value: string): void {
  if (key === '__proto__') {
    Object.defineProperty(fields, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    fields[key] = value;
  }
}
