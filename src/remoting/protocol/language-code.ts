/**
 * LanguageCode (`remoting/.../protocol/LanguageCode.java`): the JSON header carries the name, the
 * ROCKETMQ binary header carries the byte.
 *
 * A 4.9.8 peer turns an unknown name or byte into null and may fail later on it, so we only ever
 * send JAVA (see spec trap 10). As a server we must accept anything, and a command we decode and
 * re-encode (the broker relays some requests) must keep the sender's value. Hence the two
 * conversions are total and round-trip:
 * - an unknown byte becomes its decimal string (`languageName(200) === '200'`);
 * - a name that is the canonical decimal form of a byte (0..255, no sign, no leading zero) becomes
 *   that byte again, so `languageByte(languageName(b)) === b` for every byte;
 * - any other unknown name becomes OTHER (7): it has no byte of its own, and OTHER is the value
 *   upstream reserves for "some other client".
 * Bytes are unsigned here (0..255), as `Buffer.readUInt8` gives them; Java's signed byte -1 is 255.
 */

export const LanguageCode = {
  JAVA: 0,
  CPP: 1,
  DOTNET: 2,
  PYTHON: 3,
  DELPHI: 4,
  ERLANG: 5,
  RUBY: 6,
  OTHER: 7,
  HTTP: 8,
  GO: 9,
  PHP: 10,
  OMS: 11,
  RUST: 12,
  /** 5.x only: a 4.9.8 peer decodes it to null. Never send it to a 4.x peer. */
  NODE_JS: 13,
} as const;

export type LanguageName = keyof typeof LanguageCode;

const NAMES: readonly string[] = (() => {
  const names: string[] = [];
  for (let b = 0; b < 256; b++) names.push(String(b));
  for (const name of Object.keys(LanguageCode) as LanguageName[]) names[LanguageCode[name]] = name;
  return names;
})();

const BYTES: ReadonlyMap<string, number> = (() => {
  const bytes = new Map<string, number>();
  for (let b = 0; b < 256; b++) bytes.set(NAMES[b] as string, b);
  return bytes;
})();

/** Byte for a language name; see the file comment for names no version defines. */
export function languageByte(name: string): number {
  return BYTES.get(name) ?? LanguageCode.OTHER;
}

/** Name for a language byte (only its low 8 bits count); unknown bytes give their decimal string. */
export function languageName(byte: number): string {
  return NAMES[byte & 0xff] as string;
}

/** True when the name is one a Java peer of that era understands (`NODE_JS` needs 5.x). */
export function isKnownLanguage(name: string): name is LanguageName {
  return Object.hasOwn(LanguageCode, name);
}
