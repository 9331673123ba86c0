import { KbsyncError } from '../../errors.js';
import { findProgram } from '../../shell/find-program.js';
import { runCommand } from '../../shell/run-command.js';
import type { Platform } from './spec.js';

/** One step a service manager was asked for, and how it went. */
type Step = { readonly command: string; readonly ok: boolean; readonly output: string };

/**
 * systemctl --user (or launchctl): each call run with its arguments, never through a user's string, and
 * bounded in time. `available` is false where the program is missing or its user manager does not answer
 * (a container, an ssh session without a user bus): install then writes the files and says what to run.
 */
export class ServiceManager {
  readonly #program: string | undefined;
  readonly #prefix: readonly string[];
  readonly #env: NodeJS.ProcessEnv;

  constructor(platform: Platform, env: NodeJS.ProcessEnv) {
    this.#env = env;
    const name = platform === 'systemd' ? 'systemctl' : 'launchctl';
    this.#program = findProgram(name, env);
    this.#prefix = platform === 'systemd' ? ['--user'] : [];
  }

  /** Whether the manager answers at all (systemd: its user instance; launchd: launchctl is there). */
  async available(): Promise<boolean> {
    if (!this.#program) return false;
    if (this.#prefix.length === 0) return true;
    return (await this.run(['show-environment'])).ok;
  }

  async run(args: readonly string[]): Promise<Step> {
    const words = [...this.#prefix, ...args];
    const command = `${this.#program ?? 'systemctl'} ${words.join(' ')}`;
    if (!this.#program) return { command, ok: false, output: 'not installed' };
    const outcome = await runCommand({ command: '"$0" "$@"', name: this.#program, args: words, env: this.#env, timeoutMs: 30_000, keepChars: 2000 });
    const output = `${outcome.stdout}${outcome.stderr}`.trim();
    return { command, ok: outcome.ok, output: outcome.ok ? output : `${outcome.failure}${output && !outcome.failure.includes(output) ? `: ${output}` : ''}` };
  }

  /** Runs `args`; a refusal is an error that quotes the manager's words and says the files are in place. */
  async require(args: readonly string[]): Promise<Step> {
    const step = await this.run(args);
    if (!step.ok) {
      throw new KbsyncError('SERVICE_MANAGER_FAILED', `\`${step.command}\` failed: ${step.output}`, {
        hint: 'The files are written; fix what it says and run that step by hand, or run `kbsync service install` again.',
      });
    }
    return step;
  }
}
