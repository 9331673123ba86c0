import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { plan } from '../../../src/sync/decide/plan.js';
import { isSettled, type SettlePlace } from '../../../src/sync/decide/settled.js';
import { held } from '../../../src/sync/decide/held.js';
import type { LocalEntry, PlanInput, RecordEntry } from '../../../src/sync/decide/types.js';
import { asTreeNodeId, type TreeNodeId } from '../../../src/model/ids.js';
import { record as recordAt, ROOT } from './record.js';

const TEAM = asTreeNodeId('team-folder');

/** A record of a document kbsync created, in the folder its path names. */
const record = (path: string, over: Partial<RecordEntry> = {}): RecordEntry => recordAt(path, { parentTreeNodeId: path.startsWith('team/') ? TEAM : ROOT, ...over });

/** The row the ledger's narrow read gives for a record (DocumentStat's settle columns). */
const rowOf = (r: RecordEntry, conflict = false) => ({
  path: r.path,
  parentTreeNodeId: r.parentTreeNodeId,
  remoteTitle: r.remoteTitle,
  created: r.nodeId !== null,
  marked: r.held !== null || conflict || (r.images?.length ?? 0) > 0,
});

/** A push that lists nothing, every file unchanged since its record (the only run that settles files). */
function pushInput(records: readonly RecordEntry[], options: { layout?: 'folders' | 'flat'; folderIds?: [string, TreeNodeId][]; locals?: LocalEntry[]; openConflicts?: string[] } = {}): PlanInput {
  const locals = options.locals ?? records.map((r) => ({ path: r.path, hash: r.localHash, ino: 0 }));
  return {
    mode: 'push',
    local: new Map(locals.map((e) => [e.path, e])),
    records: new Map(records.map((r) => [r.path, r])),
    remote: undefined,
    localFolders: new Set(['team']),
    recordedFolders: new Set(['team']),
    folderIds: new Map<string, TreeNodeId>(options.folderIds ?? [['', ROOT], ['team', TEAM]]),
    openConflicts: new Set(options.openConflicts ?? []),
    layout: options.layout ?? 'folders',
    guards: { maxDeleteRatio: 0.5, maxDeletes: 50, force: false },
  };
}

/** The same input with the settled records left out, as observe passes it. */
function settledInput(input: PlanInput, conflicts: ReadonlySet<string> = new Set()): { input: PlanInput; settled: string[] } {
  const where: SettlePlace = { layout: input.layout, folderIds: input.folderIds, remote: undefined };
  const settled = [...input.records.values()].filter((r) => isSettled(rowOf(r, conflicts.has(r.path)), where)).map((r) => r.path);
  const records = new Map([...input.records].filter(([path]) => !settled.includes(path)));
  return { input: { ...input, records, settled: new Set(settled) }, settled };
}

describe('settled records: left out of planning only where plan() has nothing to do for them', () => {
  const cases: { name: string; records: RecordEntry[]; settles: boolean; options?: Parameters<typeof pushInput>[1]; conflict?: boolean }[] = [
    { name: 'a plain synced file', records: [record('a.md')], settles: true },
    { name: 'a file in its folder', records: [record('team/b.md')], settles: true },
    { name: 'a pulled document (no creation nodeId) in another folder: never moved', records: [record('team/c.md', { nodeId: null, origin: 'pulled', parentTreeNodeId: ROOT })], settles: true },
    { name: 'a created document still in the old folder: the move is finished', records: [record('team/d.md', { parentTreeNodeId: ROOT })], settles: false },
    { name: 'a folder the ledger does not know: nothing to move', records: [record('other/e.md', { parentTreeNodeId: ROOT })], settles: true },
    { name: 'a held document', records: [record('f.md', { held: { ...held('PLACEHOLDERS'), localHash: 'h-f.md', remoteModifiedTime: '' } })], settles: false },
    { name: 'an open conflict', records: [record('g.md')], settles: false, options: { openConflicts: ['g.md'] }, conflict: true },
    { name: 'a document sent with images', records: [record('h.md', { images: [{ p: 'x.png', h: 'sha256:1', u: 'https://img/x' }] })], settles: false },
    { name: 'flat layout, title as its path asks', records: [record('team/i.md', { parentTreeNodeId: ROOT, remoteTitle: 'team/i' })], settles: true, options: { layout: 'flat' } },
    { name: 'flat layout, another title: a move', records: [record('team/j.md', { parentTreeNodeId: ROOT, remoteTitle: 'j' })], settles: false, options: { layout: 'flat' } },
  ];
  for (const c of cases) {
    test(`${c.name}: ${c.settles ? 'settled' : 'planned'}, and the plan is the same either way`, () => {
      const full = pushInput(c.records, c.options);
      const { input, settled } = settledInput(full, new Set(c.conflict ? c.records.map((r) => r.path) : []));
      assert.deepEqual(settled.length > 0, c.settles);
      const whole = plan(full);
      if (c.settles) assert.deepEqual(whole.actions, [], 'a settled record must plan nothing');
      assert.deepEqual(plan(input), whole);
    });
  }

  test('settled files count as synced for the guards, and are never taken for new files', () => {
    const records = Array.from({ length: 10 }, (_, i) => record(`n${i}.md`));
    // Four files deleted locally among six unchanged: over the 50% ratio only if the six are counted.
    const gone = records.slice(0, 4).map((r) => r.path);
    const locals = records.filter((r) => !gone.includes(r.path)).map((r) => ({ path: r.path, hash: r.localHash, ino: 0 }));
    const full = pushInput(records, { locals });
    const left = { ...full, records: new Map([...full.records].filter(([path]) => gone.includes(path))), settled: new Set(locals.map((l) => l.path)) };
    const whole = plan(full);
    assert.equal(whole.refusal, undefined);
    assert.deepEqual(plan(left), whole);
    assert.deepEqual(whole.actions.map((a) => a.kind), ['delete-remote', 'delete-remote', 'delete-remote', 'delete-remote']);
    const tight = { ...left, guards: { ...left.guards, maxDeleteRatio: 0.3 } };
    assert.equal(plan(tight).refusal?.code, 'MASS_DELETE');
    assert.equal(plan({ ...full, guards: tight.guards }).refusal?.code, 'MASS_DELETE');
  });
});
