import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import type { EmulatorOptions } from '../../../src/emulator/index.js';
import { fullySynced } from '../../../src/sync/views/report.js';
import { syncInProcess, type CaseFixture, type Run } from '../../helpers/bad-input.js';

export { configOf, writeConfig } from '../../helpers/bad-input.js';

/** What a case may change. Anything else must be byte-identical afterwards (kbsync's state folder aside). */
export type Changes = 'nothing' | 'local' | 'remote' | 'both';

/**
 * One row of the bad-input catalogue: a situation a user can get into, what kbsync must answer
 * (exit code, a message naming what was wrong AND what to do), and what must survive it.
 */
export type BadInput = {
  readonly group: string;
  readonly name: string;
  /** An emulator of its own (clock skew); otherwise the suite's shared one, in a workspace of the case's own. */
  readonly emulator?: EmulatorOptions;
  /** Brings the folder and the knowledge base to the state just before kbsync meets the bad input, and applies it. */
  readonly setup?: (f: CaseFixture) => Promise<void>;
  /** Runs kbsync (usually once). */
  readonly run: (f: CaseFixture) => Promise<Run>;
  readonly exit: number;
  /** Patterns the output must match: what was wrong, and what to do. */
  readonly says: readonly RegExp[];
  /** Default 'nothing'. Local changes are only ever allowed inside the root. */
  readonly changes?: Changes;
  readonly check?: (f: CaseFixture, run: Run) => Promise<void>;
};

/** Writes the files and syncs them, asserting the sync went through: the state before most bad inputs. */
export async function synced(f: CaseFixture, files: Readonly<Record<string, string | Buffer>>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    if (typeof text === 'string') await f.write(rel, text);
    else await writeFile(`${f.root}/${rel}`, text);
  }
  const report = await syncInProcess(f);
  assert.ok(fullySynced(report), `setup sync failed: ${JSON.stringify(report)}`);
}

/** The report of a run, which must exist (the run printed --json). */
export function reportOf(run: Run): NonNullable<Run['report']> {
  assert.ok(run.report, `no JSON report:\n${run.stdout}\n${run.stderr}`);
  return run.report;
}

/** A second run that must find nothing to do: the case reached a steady state. */
export async function assertSteady(f: CaseFixture): Promise<void> {
  const again = await f.sync();
  assert.equal(again.code, 0, `${again.stdout}\n${again.stderr}`);
  const changed = reportOf(again).results.filter((r) => !r.ok || r.result !== 'unchanged');
  assert.deepEqual(changed, [], 'a second sync still changed something');
}
