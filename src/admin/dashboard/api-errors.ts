/** Errors shown in the dashboard: the message, which names the peer and carries a broker's remark. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
