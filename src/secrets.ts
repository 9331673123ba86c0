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

/**
 * A JSON-like value as JSON, redacted (for --json reports). Masked in the text, not in a copy of the value
 * written again: for a sync report of 10,000 files that copy was tens of megabytes made at the run's peak.
 * JSON.stringify's text is canonical, so it is the text such a copy would have printed.
 */
export function redactedJson(value: unknown): string {
  return redact(JSON.stringify(value) ?? 'null');
}

/**
 * Variables that hold kbsync's secrets: the default token variable, the token given as a value, and the
 * variable the configuration reads the token from (registered when the token source is made). A command
 * kbsync runs (images.upload, a diagram renderer, notify.command, a merge tool, the token command) never
 * gets them, nor any variable whose value holds a registered secret, unless `service.shareToken` asks for it.
 */
const secretVariables = new Set(['KBSYNC_TOKEN', 'KBSYNC_SERVICE_TOKEN_VALUE']);
let shareWithCommands = false;

export function registerSecretVariable(name: string): void {
  secretVariables.add(name);
}

/** `service.shareToken: true`: the person asked for the commands kbsync runs to see the token. */
export function shareSecretsWithCommands(share: boolean): void {
  shareWithCommands = share;
}

const holdsSecret = (value: string): boolean => [...secrets].some((secret) => value.includes(secret));

/** The environment a command kbsync runs gets: `env` without kbsync's secrets (rule 9). */
export function commandEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (shareWithCommands) return { ...env };
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !secretVariables.has(name) && !holdsSecret(value)) out[name] = value;
  }
  return out;
}

/**
 * What a failing token command printed, safe to show: it may echo the token it failed to deliver, which no
 * registry knows yet, so every run of 20 or more token characters that holds a digit is masked as well.
 * Words, paths and variable names (no digit, or broken by `/` and `.`) stay readable.
 */
export function redactTokenLike(text: string): string {
  return redact(text).replace(/[A-Za-z0-9_+=-]{20,}/g, (run) => (/\d/.test(run) ? MASK : run));
}
