/**
 * Commander's usage errors, made safe and helpful. A mistyped or invented flag may carry a secret
 * (`--token=...`), so the value of an unknown `--name=value` option is never echoed; and for the
 * options people try that kbsync deliberately lacks, a hint says what to do instead.
 */
export function scrubUsageError(text: string): string {
  return text.replace(/'(--?[^'=\s]+)=[^']*'/g, "'$1=…'");
}

const SECRET_FLAG = /unknown option '--?(token|access-token|api-token|api-key|password|secret)\b/i;

export function usageHint(message: string): string | undefined {
  if (SECRET_FLAG.test(message)) {
    return (
      'kbsync never takes the access token on the command line (other users could read it in the process list): ' +
      'set KBSYNC_TOKEN, or service.token in sync.config.json ({"env": NAME}, {"file": PATH} or {"command": COMMAND}).'
    );
  }
  return undefined;
}
