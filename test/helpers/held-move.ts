import assert from 'node:assert/strict';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { PLACEHOLDER_PREFIX } from '../../src/markdown/to-markdown.js';
import type { ArmedPair, SyncReport } from './workstation-pair.js';

/** The text without kbsync's placeholder comments: what a person who does as PLACEHOLDERS says leaves. */
export const stripped = (text: string): string => text.replace(new RegExp(`^[ \\t]*${PLACEHOLDER_PREFIX}[^\\n]*-->[ \\t]*\\n?`, 'gm'), '');

/** One file's results in a run: each as its result and reason, or a failure's code. */
export const resultsFor = (report: SyncReport, path: string): unknown[] =>
  report.results.filter((r) => r.path === path).map((r) => (r.ok ? [r.result, r.reason ?? ''] : [r.code, '']));

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
