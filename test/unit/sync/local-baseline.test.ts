import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { LocalFile, LocalScan } from '../../../src/local/index.js';
import { asDocKey, asTreeNodeId, type TreeNodeId } from '../../../src/model/ids.js';
import type { SettlePlace } from '../../../src/sync/decide/settled.js';
import { BaselineMemo, localBaseline, type LocalBaseline } from '../../../src/sync/observe/local-baseline.js';
import { sampleDocument, tempLedger } from '../ledger/helpers.js';

const FILES = 6;
const pathOf = (i: number): string => `notes/doc-${i}.md`;
/** The file as its row (sampleDocument) recorded it: its stat matches. */
const fileOf = (i: number, edit = 0): LocalFile => ({ path: pathOf(i), key: pathOf(i), size: 100 + i + edit, mtimeMs: 1_700_000_000_000.25 + i + edit, ino: 5000 + i, dev: 1 });
const scanOf = (files: readonly LocalFile[]): LocalScan => ({ root: '/nowhere', rootDev: 1, rootIno: 1, files, conflictCopies: [], folders: ['notes'], skipped: [], problems: [], complete: true });
const placeOf = (folder: TreeNodeId): SettlePlace => ({ layout: 'folders', folderIds: new Map([['notes', folder]]), remote: undefined });

type Step =
  | { readonly op: 'save'; readonly i: number; readonly n: number } // the file changes on disk (ScanCache replaces it in place)
  | { readonly op: 'record'; readonly i: number } // its push is recorded: the row takes the file's stat
  | { readonly op: 'hold'; readonly i: number } // the row is marked (not settled)
  | { readonly op: 'forget'; readonly i: number } // the row is removed (the kept rows are read anew)
  | { readonly op: 'adopt'; readonly i: number } // a row for the file is written again
  | { readonly op: 'walk' } // a full walk: every file a new object
  | { readonly op: 'drop'; readonly i: number } // the file is gone from the scan
  | { readonly op: 'folders' } // the folder's id changes: no row fits its place any more, or fits again
  | { readonly op: 'cycle' };

const i = fc.nat(FILES - 1);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('save' as const), i, n: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ op: fc.constant('record' as const), i }),
  fc.record({ op: fc.constant('hold' as const), i }),
  fc.record({ op: fc.constant('forget' as const), i }),
  fc.record({ op: fc.constant('adopt' as const), i }),
  fc.constant({ op: 'walk' as const }),
  fc.record({ op: fc.constant('drop' as const), i }),
  fc.constant({ op: 'folders' as const }),
  fc.constant({ op: 'cycle' as const }),
);

/** A baseline as plain, order-free values (the memo's collections may hold their members in another order). */
function plain(baseline: LocalBaseline, files: readonly LocalFile[]) {
  const sorted = (values: Iterable<string>) => [...values].sort();
  const at = new Map(files.map((file, n) => [file.path, n]));
  return {
    matched: [...baseline.matched].sort(([a], [b]) => (a < b ? -1 : 1)),
    unmatched: baseline.unmatched.map((file) => [file, at.get(file.path)]),
    seen: sorted(baseline.seen),
    unseen: sorted(baseline.unseen),
    settled: sorted(baseline.settled),
    rest: [...baseline.rest].sort(([a], [b]) => (a < b ? -1 : 1)),
  };
}

describe('BaselineMemo (the daemon keeps its per-file work between local cycles)', () => {
  test('after any saves, recorded pushes, holds, removed rows, walks and folder changes, the kept baseline is the one worked out afresh', (t) => {
    const ledger = tempLedger(t, { lock: false });
    ledger.documents.keepSummaries();
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        for (const row of ledger.documents.allSummaries()) ledger.documents.remove(row.path);
        for (let n = 0; n < FILES; n++) ledger.documents.upsert(sampleDocument(n, { parentTreeNodeId: asTreeNodeId('notes-folder') }));
        let files: LocalFile[] = Array.from({ length: FILES }, (_, n) => fileOf(n));
        let folder = asTreeNodeId('notes-folder');
        const memo = new BaselineMemo();
        const check = (what: string) => {
          const rows = ledger.documents.summariesByPath();
          const kept = memo.baseline(ledger, scanOf(files), rows, placeOf(folder));
          assert.deepEqual(plain(kept, files), plain(localBaseline(scanOf(files), rows, placeOf(folder)), files), what);
          // The run's map is its own: what it adds (the files it reads) is not kept.
          kept.matched.clear();
        };
        check('the first cycle');
        for (const s of steps) {
          const path = 'i' in s ? pathOf(s.i) : '';
          const file = files.find((f) => f.path === path);
          const has = ledger.documents.summary(path) !== undefined;
          if (s.op === 'save' && file) files = files.map((f) => (f === file ? fileOf(s.i, s.n) : f));
          else if (s.op === 'record' && file && has) ledger.documents.update(path, { statSize: file.size, statMtimeMs: file.mtimeMs, statIno: file.ino, heldCode: null });
          else if (s.op === 'hold' && has) ledger.documents.update(path, { heldCode: 'EMPTIED' });
          else if (s.op === 'forget') ledger.documents.remove(path);
          else if (s.op === 'adopt') ledger.documents.upsert(sampleDocument(s.i, { parentTreeNodeId: asTreeNodeId('notes-folder'), docKey: asDocKey(`again-${s.i}`) }));
          else if (s.op === 'walk') files = files.map((f) => ({ ...f }));
          else if (s.op === 'drop') files = files.filter((f) => f.path !== path);
          else if (s.op === 'folders') folder = asTreeNodeId(folder === 'notes-folder' ? 'elsewhere' : 'notes-folder');
          else if (s.op === 'cycle') check(JSON.stringify(steps));
        }
        check(JSON.stringify(steps));
      }),
      { numRuns: 200 },
    );
  });
});
