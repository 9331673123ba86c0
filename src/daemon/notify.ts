import type { Logger } from '../log.js';
import { WAITING } from './cycle-log.js';
import { oneLine } from '../printable.js';
import { runCommand } from '../shell/run-command.js';
import type { ActionResult } from '../sync/run/executor.js';
import { invocation } from '../invocation.js';

type NotifySettings = { readonly command: string | null; readonly timeoutMs: number };

/** What the person is told about: work that now waits for them. */
type NotifyEvent = { readonly event: 'conflict' | 'held'; readonly path: string; readonly message: string };

/** The events a cycle's result gives: a new conflict, or a hold said for the first time (not a repeat). */
export function eventOf(result: ActionResult): NotifyEvent | undefined {
  // A delete or move that waits is no work for the person: it goes by itself, or its file comes back.
  if (!result.ok || result.repeated || (result.reason !== undefined && WAITING.has(result.reason))) return undefined;
  if (result.result === 'conflict') return { event: 'conflict', path: result.path, message: `${result.path}: conflicting edits: ${result.detail ?? `the other version is in ${result.conflictPath ?? 'a conflict copy'}`}` };
  if (result.result === 'held') return { event: 'held', path: result.path, message: `${result.path}: ${result.detail ?? 'left as is for now'}` };
  return undefined;
}

/**
 * Runs the configured `notify` command (through the shell, like a git hook) for each event, one at a time
 * so a burst cannot fork a crowd, with KBSYNC_EVENT, KBSYNC_PATH and KBSYNC_MESSAGE in its environment.
 * The message is for a person (a desktop notification, a chat line): one line, every control character
 * shown escaped (printable.ts). The path is the file's path exactly, for a command that opens the file.
 * A command that fails or outlives `timeoutMs` is killed and said at warn, once until it works again: a
 * broken notifier must never stop or slow the sync.
 */
export class Notifier {
  #chain: Promise<void> = Promise.resolve();
  #failing = false;

  constructor(
    private readonly settings: NotifySettings,
    private readonly logger: Logger,
    private readonly env: NodeJS.ProcessEnv = invocation().env,
  ) {}

  notify(event: NotifyEvent): void {
    const command = this.settings.command;
    if (!command) return;
    this.#chain = this.#chain.then(() => this.#run(command, event));
  }

  async #run(command: string, event: NotifyEvent): Promise<void> {
    const outcome = await runCommand({
      command,
      env: { ...this.env, KBSYNC_EVENT: event.event, KBSYNC_PATH: event.path, KBSYNC_MESSAGE: oneLine(event.message) },
      timeoutMs: this.settings.timeoutMs,
    });
    const failure = outcome.ok ? undefined : outcome.failure;
    if (failure && !this.#failing) {
      this.logger.warn({ code: 'NOTIFY_FAILED', command }, `the notify command failed (${failure}); check "notify.command" in the config. Syncing goes on.`);
    }
    this.#failing = failure !== undefined;
  }
}
