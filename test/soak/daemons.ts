import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startDaemon, waitUntil, type Daemon, type LogLine } from '../integration/daemon/daemon-process.js';
import type { Machine } from '../model/world.js';

/**
 * The two machines' `kbsync watch` processes through a soak: started, killed (SIGKILL mid-work, or at a named
 * crash point by `KBSYNC_CRASH_AT`), restarted, and stopped. Every exit the soak did not cause is a finding
 * (a daemon that stops by itself leaves its folder unsynced with nobody told).
 */

/** A sweep finished (the cycle's own debug line: it listed both sides in full). */
const sweepDone = (line: LogLine): boolean => line.msg.startsWith('sweep cycle done');

type Crewman = {
  readonly machine: Machine;
  daemon: Daemon | undefined;
  /** The crash point this incarnation kills itself at (`point:n`), if any. */
  crashAt: string | undefined;
  /** The exit the soak caused, and so expects. */
  expecting: 'kill' | 'stop' | undefined;
  /** The incarnations that have exited, in order. */
  readonly past: Daemon[];
};

export type CrewCounts = { starts: number; kills: number; crashArmed: number; crashed: number; stops: number };

export class DaemonCrew {
  readonly #crew = new Map<string, Crewman>();
  readonly #say: (line: string) => void;
  /** Exits nobody asked for, and graceful stops that did not end with exit 0. */
  readonly problems: string[] = [];
  readonly counts: CrewCounts = { starts: 0, kills: 0, crashArmed: 0, crashed: 0, stops: 0 };

  constructor(machines: readonly Machine[], say: (line: string) => void) {
    for (const machine of machines) this.#crew.set(machine.name, { machine, daemon: undefined, crashAt: undefined, expecting: undefined, past: [] });
    this.#say = say;
  }

  #of(machine: Machine): Crewman {
    const man = this.#crew.get(machine.name);
    if (!man) throw new Error(`no daemon for machine ${machine.name}`);
    return man;
  }

  running(machine: Machine): boolean {
    return this.#of(machine).daemon !== undefined;
  }

  /** Is the machine's daemon one that will kill itself at a crash point? */
  armed(machine: Machine): boolean {
    return this.#of(machine).crashAt !== undefined;
  }

  /** Starts `kbsync watch` for the machine (armed to crash at `crashAt`), and waits until it watches its folder. */
  async start(machine: Machine, crashAt?: string): Promise<void> {
    const man = this.#of(machine);
    if (man.daemon) throw new Error(`${machine.name}'s daemon already runs`);
    const daemon = startDaemon(machine.settings, crashAt ? { KBSYNC_CRASH_AT: crashAt } : {});
    man.daemon = daemon;
    man.crashAt = crashAt;
    man.expecting = undefined;
    this.counts.starts += 1;
    if (crashAt) this.counts.crashArmed += 1;
    void daemon.exited().then((code) => this.#exited(man, daemon, code));
    await daemon.waitForLog((line) => line.msg.startsWith('watching '), `${machine.name}'s daemon to watch its folder`, 60_000);
    this.#say(`${machine.name}: daemon started (pid ${daemon.pid})${crashAt ? `, to crash at ${crashAt}` : ''}`);
  }

  #exited(man: Crewman, daemon: Daemon, code: number | string): void {
    man.past.push(daemon);
    if (man.daemon === daemon) man.daemon = undefined;
    const expected = man.expecting;
    man.expecting = undefined;
    if (expected === 'kill' && code === 'SIGKILL') return;
    // A daemon armed to crash finishes its current work on SIGTERM, and that work can reach its crash point
    // (soak seed 722: stopped while its create was on its way, it crashed at after-create:2, as armed).
    const crashedAsArmed = man.crashAt !== undefined && code === 'SIGKILL';
    if (expected === 'stop' && !crashedAsArmed) {
      if (code !== 0) this.problems.push(`${man.machine.name}'s daemon exited ${String(code)} when asked to stop (SIGTERM), not 0`);
      return;
    }
    if (crashedAsArmed) {
      this.counts.crashed += 1;
      this.#say(`${man.machine.name}: daemon crashed at ${man.crashAt}, as armed`);
      return;
    }
    const last = daemon.logs.slice(-8).map((line) => `      ${line.msg}`);
    this.problems.push(`${man.machine.name}'s daemon (pid ${daemon.pid}) exited ${String(code)} by itself; its last lines:\n${last.join('\n')}`);
    this.#say(`${man.machine.name}: daemon exited ${String(code)} by itself`);
  }

  /** SIGKILL, as a power cut or the OOM killer would. */
  kill(machine: Machine): void {
    const man = this.#of(machine);
    if (!man.daemon) return;
    man.expecting = 'kill';
    this.counts.kills += 1;
    man.daemon.kill('SIGKILL');
  }

  /** SIGTERM, and the wait for its exit (which must be 0). */
  async stop(machine: Machine): Promise<void> {
    const man = this.#of(machine);
    const daemon = man.daemon;
    if (!daemon) return;
    man.expecting = 'stop';
    this.counts.stops += 1;
    daemon.kill('SIGTERM');
    await daemon.exited();
  }

  /** Waits until the daemon's log, after line `from`, has a line (its next hint, say); false when none came. */
  async nextLine(machine: Machine, from: number, timeoutMs: number): Promise<boolean> {
    const daemon = this.#of(machine).daemon;
    if (!daemon) return false;
    return waitUntil(() => daemon.logs.length > from || !this.running(machine), 'a log line', timeoutMs).then(
      () => this.running(machine),
      () => false,
    );
  }

  /** Lines logged by the running daemon so far. */
  lines(machine: Machine): number {
    return this.#of(machine).daemon?.logs.length ?? 0;
  }

  /**
   * Waits for `count` sweeps to finish after now (the second began after now). Throws, naming the machine,
   * when the daemon exits or no sweep finishes in `timeoutMs`: the daemon is then stuck, which is a finding.
   */
  async sweeps(machine: Machine, count: number, timeoutMs: number): Promise<void> {
    const daemon = this.#of(machine).daemon;
    if (!daemon) throw new Error(`${machine.name}'s daemon is not running`);
    const from = daemon.logs.length;
    const done = (): number => daemon.logs.slice(from).filter(sweepDone).length;
    await waitUntil(() => done() >= count || !this.running(machine), `${machine.name}'s daemon to finish ${count} sweep(s)`, timeoutMs);
    if (done() < count) throw new Error(`${machine.name}'s daemon exited while the soak waited for its sweeps`);
  }

  /** Every line every incarnation of the machine's daemon logged, the running one's included. */
  logs(machine: Machine): LogLine[] {
    const man = this.#of(machine);
    return [...man.past, ...(man.daemon ? [man.daemon] : [])].flatMap((daemon) => daemon.logs);
  }

  /** Writes each machine's daemon output beside its folder (kept for a post-mortem with --keep). */
  async saveLogs(): Promise<void> {
    for (const man of this.#crew.values()) {
      const all = [...man.past, ...(man.daemon ? [man.daemon] : [])];
      await writeFile(join(man.machine.settings.dir, 'daemon.log'), all.map((daemon) => daemon.stderr()).join(''));
    }
  }

  /** SIGKILL whatever still runs (the soak's cleanup). */
  async dispose(): Promise<void> {
    for (const man of this.#crew.values()) {
      man.expecting = 'kill';
      await man.daemon?.dispose();
    }
  }
}
