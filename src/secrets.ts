/**
 * The token must never appear in a log line, an error, the ledger or a stack trace (design rule 9).
 * Every secret kbsync learns is registered here, and every text that leaves the process
 * through a log or an error report passes through `redact`.
 */
const secrets = new Set<string>();
const MASK = '[redacted]';

export function registerSecret(secret: string): void {
  // Short strings would mask ordinary words; no real token is this short.
  if (secret.length >= 8) secrets.add(secret);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(MASK);
  return out;
}

/** Deep-redacts a JSON-like value (for --json reports and structured log fields). */
export function redactValue<T>(value: T): T {
  if (secrets.size === 0) return value;
  return JSON.parse(redact(JSON.stringify(value) ?? 'null')) as T;
}
