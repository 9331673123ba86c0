import assert from 'node:assert/strict';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { PLACEHOLDER_PREFIX } from '../../src/markdown/to-markdown.js';
import type { ArmedPair, SyncReport } from './workstation-pair.js';

/**
 * Model seed 6018 (keyless): a page a colleague gave a code block in the web editor, so both files hold its
 * placeholder. A moves the file and forces the move: the new document is made, the old one deleted (backed up),
 * and A's first body is held (PLACEHOLDERS), so the new document stays empty with only A's record of its ids.
 * B, following it, waits for that body (BODY_COMING).
 */
const PROSE = '# Tasks\n\nA list of things to do.\n\nEach one has an owner.\n';
const WITH_CODE = '# Tasks\n\nA list of things to do.\n\n```sh\ntodo --list\n```\n\nEach one has an owner.\n';

/** The text without kbsync's placeholder comments: what a person who does as PLACEHOLDERS says leaves. */
export const stripped = (text: string): string => text.replace(new RegExp(`^[ \\t]*${PLACEHOLDER_PREFIX}[^\\n]*-->[ \\t]*\\n?`, 'gm'), '');

/** One file's results in a run: each as its result and reason, or a failure's code. */
export const resultsFor = (report: SyncReport, path: string): unknown[] =>
  report.results.filter((r) => r.path === path).map((r) => (r.ok ? [r.result, r.reason ?? ''] : [r.code, '']));

/**
 * The page guides/tasks.md on both machines, moved by A to tasks.md and the move forced, its first body held: the new
 * document stays empty. B has not synced since. Returns B's page (the file it keeps) and the new document's key.
 */
export async function heldMoveMade({ em, a, b, sync }: ArmedPair): Promise<{ kept: string; key: string }> {
  await a.write('guides/tasks.md', PROSE);
  for (const f of [a, b]) await sync(f);
  const oldKey = a.remoteDoc('Tasks').dentryUuid;
  em.admin.editDocument(oldKey, WITH_CODE);
  // A takes the code block in on its second run after the save, as the model did (its first, the first to learn its
  // own write's time, finds nothing to pull: seen here, not looked into).
  for (const f of [a, b, a]) await sync(f);
  const kept = await b.read('guides/tasks.md');
  assert.ok(kept.includes(PLACEHOLDER_PREFIX) && (await a.read('guides/tasks.md')).includes(PLACEHOLDER_PREFIX), 'both files hold the code block as a placeholder');

  await rename(join(a.root, 'guides/tasks.md'), join(a.root, 'tasks.md'));
  const moved = await sync(a);
  assert.deepEqual(resultsFor(moved, 'tasks.md'), [['held', 'MOVE_LOSSY']], JSON.stringify(moved.results));
  const forced = (await a.sync(['--force'])).report;
  assert.ok(forced);
  // The move is made; its first body, decided within it, is held (the move's own report names no reason).
  const [first] = forced.results.filter((r) => r.path === 'tasks.md');
  assert.ok(first?.ok && first.action === 'move' && first.result === 'held' && /placeholder comments/.test(first.detail ?? ''), JSON.stringify(forced.results));
  const made = a.remoteDocs().filter((node) => node.title === 'Tasks');
  assert.ok(made.length === 1 && made[0]?.dentryUuid !== oldKey && (made[0]?.markdown ?? '') === '', 'one document, the new one, empty');
  return { kept, key: made[0]?.dentryUuid ?? '' };
}

/** A page with a code block, which the service shows only as a placeholder. */
export const YAML_WITH_CODE = '# Yaml\n\nA parser for YAML, fast and safe.\n\n```sh\nnpm install js-yaml\n```\n\nIt reads every version of the spec.\n';
/** B's edit of that page's code line, made while A's move waits for its body. */
export const EDITED = YAML_WITH_CODE.replace('npm install js-yaml', 'npm install --save js-yaml');

/** How killedBeforeBody plays: `keyless`, A moves a page it created (only a document's creator can delete it then); `moverEdit`: A's edit of the page, made with its move; `followerPage`: B's page as it follows. */
export type KilledBeforeBody = { readonly keyless?: boolean; readonly moverEdit?: (page: string) => string; readonly followerPage?: string };

/**
 * Found with soak seed 714's set-up (token u54z lost: B's code-line edit of a file A had just moved, A killed between
 * the new document's ids and its body): `YAML_WITH_CODE` at guides/yaml.md on both; A moves it to yaml.md and is
 * killed once its record of the new document is published, before its body; B edits its code line (EDITED, or
 * `followerPage`) and has not synced since. Returns the new document's key.
 */
export async function killedBeforeBody({ em, a, b, sync, tick }: ArmedPair, { keyless = false, moverEdit = (page: string) => page, followerPage = EDITED }: KilledBeforeBody = {}): Promise<string> {
  const creator = keyless ? a : b;
  await creator.write('guides/yaml.md', YAML_WITH_CODE);
  for (const f of [creator, a, b, a, b]) await sync(f);
  const oldKey = a.remoteDoc('Yaml').dentryUuid;
  await rename(join(a.root, 'guides/yaml.md'), join(a.root, 'yaml.md'));
  await a.write('yaml.md', moverEdit(YAML_WITH_CODE));
  tick();
  assert.notEqual((await a.sync([], { KBSYNC_CRASH_AT: 'after-id-append:2' })).code, 0, 'A is killed before its body');
  const made = em.admin.dump().nodes.find((node) => node.title === 'Yaml' && node.dentryUuid !== oldKey);
  assert.ok(made && (made.markdown ?? '') === '', 'the new document is made, still empty');
  await b.write('guides/yaml.md', followerPage);
  return made.dentryUuid;
}
