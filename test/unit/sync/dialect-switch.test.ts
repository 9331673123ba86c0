import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dialectOwed, rememberDialect } from '../../../src/sync/content/dialect-switch.js';
import type { ActionResult } from '../../../src/sync/run/executor.js';
import type { VaultSettings } from '../../../src/vault/settings.js';
import { tempDir, tempLedger } from '../ledger/helpers.js';

const VAULT: VaultSettings = { attachmentFolder: '', linkFormat: 'shortest', templatesFolder: undefined };
const pushed = (path: string): ActionResult => ({ action: 'push', ok: true, path, result: 'pushed' });
const held = (path: string): ActionResult => ({ action: 'push', ok: true, path, result: 'held', detail: 'held' });

test('a dialect switch owes the files that read differently once; one not sent (held) stays owed alone, until a run sends it', (t) => {
  const root = tempDir(t);
  const ledger = tempLedger(t);
  writeFileSync(join(root, 'a.md'), '# A\n\nSee [[B]].\n');
  writeFileSync(join(root, 'b.md'), '> [!tip] Hi\n> there\n');
  writeFileSync(join(root, 'plain.md'), '# Plain\n');
  const recorded = ['a.md', 'b.md', 'plain.md', 'gone.md'];

  const owed = dialectOwed(ledger, VAULT, root, recorded);
  assert.deepEqual([...owed].sort(), ['a.md', 'b.md']);
  rememberDialect(ledger, VAULT, owed, [pushed('a.md'), held('b.md')]);

  // The held file is still owed, and only it: the files are not read again, and a.md is not sent twice.
  writeFileSync(join(root, 'a.md'), 'no wiki syntax now, but it was sent already\n');
  assert.deepEqual([...dialectOwed(ledger, VAULT, root, recorded)], ['b.md']);
  // A file no longer recorded (moved, deleted) is owed nothing.
  assert.deepEqual([...dialectOwed(ledger, VAULT, root, ['a.md'])], []);

  rememberDialect(ledger, VAULT, new Set(['b.md']), [{ action: 'merge', ok: true, path: 'b.md', result: 'merged' }]);
  assert.deepEqual([...dialectOwed(ledger, VAULT, root, recorded)], []);
  assert.equal(ledger.meta.get('markdown.dialectOwed'), undefined, 'nothing left behind in the ledger');

  // Back to CommonMark: the files with wiki syntax are owed again (what they send changed once more).
  assert.deepEqual([...dialectOwed(ledger, undefined, root, recorded)], ['b.md']);
});
