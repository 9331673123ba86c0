import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Stamped } from '../../../src/remote-state/codec.js';
import { checkRecord, type DocRecord, type StateRecord } from '../../../src/remote-state/records.js';
import { foldState } from '../../../src/remote-state/state.js';

const doc = (p: string, k: string, n: string | null, h = 'h'): DocRecord => ({ t: 'doc', p, k, n, h, rb: 'rb', m: '', o: n ? 'created' : 'linked' });
/** Records as one writer writes them, one batch each, its clock moving on. */
const inOrder = (records: readonly StateRecord[], w = 'w1', from = 1): Stamped[] => records.map((record, i) => ({ record, c: from + i, w, i: 0 }));
const entriesOf = (stamped: readonly Stamped[]) => [...foldState(stamped).entries].sort(([a], [b]) => (a < b ? -1 : 1));

describe('folding the shared state', () => {
  test('the latest record of a path wins; a move (same document, new path) ends the old path; gone only ends its own document', () => {
    const state = foldState(inOrder([doc('a.md', 'K1', 'N1'), doc('a.md', 'K1', null, 'h2'), doc('b.md', 'K2', 'N2'), doc('c.md', 'K2', null), { t: 'gone', p: 'a.md', k: 'OTHER' }]));
    assert.deepEqual([...state.entries.keys()].sort(), ['a.md', 'c.md']);
    assert.equal(state.entries.get('a.md')?.h, 'h2');
    assert.equal(state.entries.get('a.md')?.n, 'N1', 'a writer that did not know the creation id does not erase it');
    assert.equal(state.entries.get('c.md')?.n, 'N2', 'the moved document keeps its creation id');
    assert.equal(foldState(inOrder([doc('a.md', 'K1', 'N1'), { t: 'gone', p: 'a.md', k: 'K1' }])).entries.size, 0);
  });

  test('order comes from the stamps, not from where a record sits: an older record read later does not win', () => {
    const newer: Stamped = { record: doc('a.md', 'K1', 'N1', 'new'), c: 20, w: 'w2', i: 0 };
    const older: Stamped = { record: doc('a.md', 'K1', 'N1', 'old'), c: 10, w: 'w1', i: 0 };
    assert.equal(foldState([newer, older]).entries.get('a.md')?.h, 'new');
    assert.equal(foldState([older, newer]).entries.get('a.md')?.h, 'new');
    // The same clock: the writer id decides, the same way everywhere.
    const tie: Stamped = { ...older, c: 20 };
    assert.equal(foldState([newer, tie]).entries.get('a.md')?.h, foldState([tie, newer]).entries.get('a.md')?.h);
  });

  test('what a document replaced is learnt from its first record that says so, and kept by later records and by a compaction; two replacements of one document are both known', () => {
    const identified: DocRecord = { ...doc('guides/a.md', 'K2', 'N2', ''), rp: 'K1' };
    const records = inOrder([doc('a.md', 'K1', 'N1'), identified, doc('guides/a.md', 'K2', null, 'h2'), { t: 'gone', p: 'a.md', k: 'K1' }]);
    const state = foldState(records);
    assert.deepEqual(state.replacedBy.get('K1'), ['K2']);
    assert.equal(state.entries.get('guides/a.md')?.rp, 'K1', 'the later record of K2 did not say it, and it is kept');
    assert.deepEqual(foldState(state.live).replacedBy.get('K1'), ['K2'], 'a compaction keeps it');
    // Another machine moved K1 at the same time: both are known, in one order for every reader.
    const rival: Stamped = { record: { ...doc('ref/a.md', 'K0', 'N0', ''), rp: 'K1' }, c: 99, w: 'w2', i: 0 };
    assert.deepEqual(foldState([rival, ...records]).replacedBy.get('K1'), ['K0', 'K2']);
    // A later record of K2 that names another document changes nothing: the first to say it stands.
    assert.deepEqual(foldState([...records, { record: { ...doc('guides/a.md', 'K2', null, 'h3'), rp: 'K7' }, c: 50, w: 'w1', i: 0 }]).replacedBy.get('K7'), undefined);
    assert.equal(checkRecord({ ...identified, rp: 'K2' }), undefined, 'a document does not replace itself');
    assert.equal(checkRecord({ ...identified, rp: '../x' }), undefined, 'an id is an id');
  });

  test('an announced write stands until a later record of its document (its own, or a gone) says more', () => {
    const write: StateRecord = { t: 'write', p: 'a.md', k: 'K1', h: 'h2', a: 7 };
    assert.deepEqual(foldState(inOrder([doc('a.md', 'K1', 'N1'), write])).writes.get('K1'), { p: 'a.md', k: 'K1', h: 'h2', a: 7 });
    assert.equal(foldState(inOrder([doc('a.md', 'K1', 'N1'), write, doc('a.md', 'K1', 'N1', 'h2')])).writes.size, 0);
    assert.equal(foldState(inOrder([doc('a.md', 'K1', 'N1'), write, { t: 'gone', p: 'a.md', k: 'K1' }])).writes.size, 0);
    assert.equal(foldState(inOrder([write, doc('b.md', 'K2', 'N2')])).writes.size, 1, 'another document\'s record says nothing of it');
    assert.ok(checkRecord({ ...write, h: 'a'.repeat(64) }), 'a well-formed announcement is read');
    assert.equal(checkRecord({ ...write, h: '' }), undefined, 'an announced write names the text it makes the document hold');
    assert.equal(checkRecord({ ...write, h: 'a'.repeat(64), p: '../x.md' }), undefined, 'its path is one kbsync could sync');
  });

  test('the version a delete deleted (gone h) is kept through a later gone that does not say it, a record of the document after it, and a compaction', () => {
    const deleted = 'd'.repeat(64);
    const records = inOrder([doc('a.md', 'K1', 'N1'), { t: 'gone', p: 'a.md', k: 'K1', h: deleted }, doc('a.md', 'K1', 'N1', 'e'.repeat(64)), { t: 'gone', p: 'a.md', k: 'K1' }]);
    const state = foldState(records);
    assert.equal(state.deleted.get('K1'), deleted);
    assert.equal(foldState(state.live).deleted.get('K1'), deleted, 'a compaction keeps it');
    assert.equal(foldState(inOrder([doc('a.md', 'K1', 'N1'), { t: 'gone', p: 'a.md', k: 'K1' }])).deleted.size, 0, 'a gone without it (a move, a trash, an older kbsync) says none');
    assert.ok(checkRecord({ t: 'gone', p: 'a.md', k: 'K1', h: deleted }), 'a well-formed gone with the version deleted is read');
    assert.equal(checkRecord({ t: 'gone', p: 'a.md', k: 'K1', h: 'not a hash' }), undefined, 'the version is a source hash');
  });

  test("a plain reading that kept its front matter (hc) does not stand over its writer's exact record of the same blocks, stamped before or after it", () => {
    const exact: DocRecord = { ...doc('a.md', 'K1', 'N1', 'a'.repeat(64)), rb: 'b'.repeat(64) };
    const reading: DocRecord = { ...exact, h: 'c'.repeat(64), hc: 1 };
    const written = (c: number): Stamped => ({ record: exact, c, w: 'writer', i: 0 });
    const read = (c: number): Stamped => ({ record: reading, c, w: 'reader', i: 0 });
    assert.equal(foldState([written(10), read(20)]).entries.get('a.md')?.h, exact.h, 'read before the record came, published after it');
    assert.equal(foldState([read(10), written(20)]).entries.get('a.md')?.h, exact.h, 'the writer killed before its record, published after the reading');
    const other: Stamped = { record: { ...reading, rb: 'd'.repeat(64) }, c: 20, w: 'reader', i: 0 };
    assert.equal(foldState([written(10), other]).entries.get('a.md')?.h, reading.h, 'a reading of later blocks is the later version');
    const own: Stamped = { ...read(20), w: 'writer' };
    assert.equal(foldState([written(10), own]).entries.get('a.md')?.h, reading.h, "a writer's own later record stands");
    assert.ok(checkRecord(reading));
    assert.equal(checkRecord({ ...reading, hc: 0 }), undefined);
    // The writer's record kept its own front matter too (`hc`): a reading in doubt of the blocks still says less of
    // them; one that found a hidden edit in them (`hd: 1`) says more; an exact one says as much, and the later stands.
    const carried = (c: number): Stamped => ({ record: { ...exact, hc: 1 }, c, w: 'writer', i: 0 });
    const doubting = (c: number, more: Partial<DocRecord> = {}): Stamped => ({ record: { ...reading, l: 1, hd: 0, ...more }, c, w: 'reader', i: 0 });
    assert.equal(foldState([carried(10), doubting(20)]).entries.get('a.md')?.h, exact.h, 'a reading in doubt of the blocks');
    assert.equal(foldState([carried(10), doubting(20, { hd: 1 })]).entries.get('a.md')?.h, reading.h, 'a reading that found a hidden edit');
    assert.equal(foldState([carried(10), read(20)]).entries.get('a.md')?.h, reading.h, 'an exact reading');
    // A record in doubt of the blocks too, but that knows its front matter (no `hc`): it says more than a reading in
    // doubt, not than an exact one.
    const doubtful = (c: number): Stamped => ({ record: { ...exact, l: 1, f: 1, hd: 0 }, c, w: 'writer', i: 0 });
    assert.equal(foldState([doubtful(10), doubting(20)]).entries.get('a.md')?.h, exact.h, 'both in doubt: the front matter known stands');
    assert.equal(foldState([doubtful(10), read(20)]).entries.get('a.md')?.h, reading.h, 'an exact reading of the blocks stands, by its stamp');
  });

  // Convergence soak 741: both machines carried their front matter (hc) from a colleague's edit; one wrote a list item's
  // lazy continuation, the other read that write before its record came, and its plain reading (indented), published
  // after the record, stood over it: its file never took the writer's layout.
  test("a plain reading (pr) of another writer's write, made from the version that write was, does not stand over its exact record, whatever their front matter", () => {
    const base = 'e'.repeat(64);
    const exact: DocRecord = { ...doc('a.md', 'K1', 'N1', 'a'.repeat(64)), rb: 'b'.repeat(64), b: base, hc: 1 };
    const reading: DocRecord = { ...exact, h: 'c'.repeat(64), pr: 1 };
    const written = (c: number, more: Partial<DocRecord> = {}): Stamped => ({ record: { ...exact, ...more }, c, w: 'writer', i: 0 });
    const read = (c: number, more: Partial<DocRecord> = {}): Stamped => ({ record: { ...reading, ...more }, c, w: 'reader', i: 0 });
    assert.equal(foldState([written(10), read(20)]).entries.get('a.md')?.h, exact.h, 'read before the record came, published after it');
    assert.equal(foldState([read(10), written(20)]).entries.get('a.md')?.h, exact.h, 'published before the record: the record is the later');
    assert.equal(foldState([written(10, { pr: 1 }), read(20)]).entries.get('a.md')?.h, reading.h, 'both plain readings (a colleague\'s edit): by the stamp');
    assert.equal(foldState([written(10, { l: 1, hd: 0 }), read(20)]).entries.get('a.md')?.h, reading.h, 'a record in doubt of the blocks is no source of them');
    assert.equal(foldState([written(10), read(20, { rb: 'd'.repeat(64) })]).entries.get('a.md')?.h, reading.h, 'a reading of other blocks is a later version');
    assert.equal(foldState([written(10), read(20, { b: exact.h })]).entries.get('a.md')?.h, reading.h, 'a reading made from that record\'s own version is a later one');
    const { pr: _pr, ...rewritten } = reading;
    assert.equal(foldState([written(10), { ...read(20), record: rewritten }]).entries.get('a.md')?.h, reading.h, 'a write of the same blocks (no pr): by the stamp, as ever');
    assert.equal(foldState([written(10), { ...read(20), w: 'writer' }]).entries.get('a.md')?.h, reading.h, "a writer's own records keep their order");
    assert.ok(checkRecord(reading));
    assert.equal(checkRecord({ ...reading, pr: 0 }), undefined);
  });

  test("a hidden edit found (hd: 1) in the very blocks another writer recorded exactly stands only past that record's minute: before, it was that write", () => {
    const written: Stamped = { record: { ...doc('a.md', 'K1', 'N1', 'a'.repeat(64)), rb: 'b'.repeat(64), m: '2026-11-02T09:04Z' }, c: 10, w: 'writer', i: 0 };
    const found = (m: string, rb = 'b'.repeat(64)): Stamped => ({ record: { ...doc('a.md', 'K1', null, 'a'.repeat(64)), rb, m, l: 1, hd: 1 }, c: 20, w: 'reader', i: 0 });
    assert.equal(foldState([written, found('2026-11-02T09:04Z')]).entries.get('a.md')?.w, 'writer', 'in the minute that writer saw after its write');
    assert.equal(foldState([written, found('2026-11-02T09:05Z')]).entries.get('a.md')?.w, 'reader', 'a later minute: someone edited after the write');
    assert.equal(foldState([written, found('2026-11-02T09:04Z', 'd'.repeat(64))]).entries.get('a.md')?.w, 'reader', 'other blocks: a later version');
  });

  // Model seed 7434: a machine pulled a new page plainly (no front matter of its own), its run's records held while
  // the page's maker wrote it again; published after the maker's record, its reading stood over it for good.
  test("a plain reading of a minute before another writer's record of other blocks does not stand over it, whatever its front matter", () => {
    const written: Stamped = { record: { ...doc('a.md', 'K1', 'N1', 'a'.repeat(64)), rb: 'b'.repeat(64), m: '2026-11-02T09:06Z' }, c: 10, w: 'writer', i: 0 };
    const reading = (m: string, more: Partial<DocRecord> = {}): Stamped => ({ record: { ...doc('a.md', 'K1', null, 'c'.repeat(64)), rb: 'd'.repeat(64), m, l: 1, hd: 0, ...more }, c: 20, w: 'reader', i: 0 });
    assert.equal(foldState([written, reading('2026-11-02T09:04Z')]).entries.get('a.md')?.w, 'writer', 'read before that write, published after its record');
    assert.equal(foldState([written, reading('2026-11-02T09:06Z')]).entries.get('a.md')?.w, 'reader', 'a reading in that minute may be of a later edit');
    assert.equal(foldState([written, reading('2026-11-02T09:07Z')]).entries.get('a.md')?.w, 'reader', 'a later minute: a later version');
    assert.equal(foldState([written, reading('')]).entries.get('a.md')?.w, 'reader', 'a minute unknown: by its stamp');
    assert.equal(foldState([written, { ...reading('2026-11-02T09:04Z'), w: 'writer' }]).entries.get('a.md')?.w, 'writer', "a writer's own records keep their order");
    const exact: Stamped = { record: { ...doc('a.md', 'K1', null, 'c'.repeat(64)), rb: 'd'.repeat(64), m: '2026-11-02T09:04Z' }, c: 20, w: 'reader', i: 0 };
    assert.equal(foldState([written, exact]).entries.get('a.md')?.h, 'c'.repeat(64), 'an exact record, by its stamp, as ever');
  });

  test("a path made from the title with no record known (nt) does not stand over the path another writer's record gives the document, stamped before or after it", () => {
    const created: DocRecord = { ...doc('ref/semver.md', 'K1', 'N1', 'a'.repeat(64)), rb: 'b'.repeat(64) };
    const titled: DocRecord = { ...created, p: 'ref/semver(1).md', n: null, o: 'pulled', nt: 1 };
    const made = (c: number): Stamped => ({ record: created, c, w: 'creator', i: 0 });
    const pulled = (c: number): Stamped => ({ record: titled, c, w: 'puller', i: 0 });
    const paths = (stamped: Stamped[]) => [...foldState(stamped).entries.keys()];
    assert.deepEqual(paths([made(10), pulled(20)]), ['ref/semver.md'], "the creator's record came first: the title's path is no rename");
    assert.deepEqual(paths([pulled(10), made(20)]), ['ref/semver.md'], "the creator's record came after: it stands, as any later record");
    assert.deepEqual(paths([pulled(10), { ...pulled(20), record: { ...titled, p: 'ref/semver(2).md' }, w: 'other' }]), ['ref/semver(2).md'], 'between two titled paths, the later stands');
    const { nt: _nt, ...untitled } = titled;
    const renamed: Stamped = { record: { ...untitled, p: 'ref/renamed.md' }, c: 30, w: 'puller', i: 0 };
    assert.deepEqual(paths([made(10), pulled(20), renamed]), ['ref/renamed.md'], "the puller's own rename of the file (no nt) is a rename");
    assert.ok(checkRecord(titled));
    assert.equal(checkRecord({ ...titled, nt: 0 }), undefined);
  });

  test('two writers\' versions made from the same one (b), of other blocks: the later keeps the other as its branch, through a compaction, until another version comes', () => {
    const [p, v1, v2, saved, written] = ['a', 'b', 'c', 'e', 'f'].map((c) => c.repeat(64)) as [string, string, string, string, string];
    const pulled: Stamped = { record: { ...doc('a.md', 'K1', 'N1', v1), rb: saved, b: p }, c: 10, w: 'puller', i: 0 };
    const wrote: Stamped = { record: { ...doc('a.md', 'K1', 'N1', v2), rb: written, b: p }, c: 11, w: 'writer', i: 0 };
    const state = foldState([wrote, pulled]);
    assert.equal(state.entries.get('a.md')?.h, v2, 'the later record is the latest, as ever');
    assert.equal(state.forks.get('K1')?.h, v1, 'the branch it was made beside is kept');
    assert.equal(foldState(state.live).forks.get('K1')?.h, v1, 'a compaction keeps it');
    // The writer saying its version again (a time learnt) ends nothing; a record of another version does, and a gone.
    assert.equal(foldState([pulled, wrote, { ...wrote, c: 12 }]).forks.get('K1')?.h, v1);
    assert.equal(foldState([pulled, wrote, { record: { ...doc('a.md', 'K1', 'N1', 'd'.repeat(64)), b: v2 }, c: 12, w: 'puller', i: 0 }]).forks.size, 0);
    assert.equal(foldState([pulled, wrote, { record: { t: 'gone', p: 'a.md', k: 'K1' }, c: 12, w: 'puller', i: 0 }]).forks.size, 0);
    // Not branches: one writer's two versions, two records of the very blocks, a record that does not say what it was made from.
    assert.equal(foldState([pulled, { ...wrote, w: 'puller' }]).forks.size, 0);
    assert.equal(foldState([pulled, { ...wrote, record: { ...(wrote.record as DocRecord), rb: saved } }]).forks.size, 0);
    assert.equal(foldState([pulled, { ...wrote, record: { ...doc('a.md', 'K1', 'N1', v2), rb: written } }]).forks.size, 0);
    // Nor a version made from the very version the earlier record took in exactly (its own `h` is its `b`): a later one of it.
    assert.equal(foldState([{ ...pulled, record: { ...(pulled.record as DocRecord), h: p } }, wrote]).forks.size, 0);
    assert.ok(checkRecord(pulled.record), 'a record that says what it was made from is read');
    assert.equal(checkRecord({ ...pulled.record, b: 'not a hash' }), undefined, 'what it was made from is a source hash');
  });

  test("another writer's plain reading of a write, published before that write's record: the version it was made from is the branch the write overtook, through a compaction", () => {
    const [p, wrote, read, overtook, other] = ['a', 'b', 'c', 'd', 'e'].map((c) => c.repeat(64)) as [string, string, string, string, string];
    const [before, after] = ['1', '2'].map((c) => c.repeat(64)) as [string, string];
    // B wrote `wrote` (a link's address: the blocks as before) from `p`; A's write of `overtook` from `p` replaced it;
    // B read that write plainly (`read`, its blocks `after`) before A's record came, made from its own `wrote`.
    const written: Stamped = { record: { ...doc('a.md', 'K1', 'N1', wrote), rb: before, b: p }, c: 10, w: 'B', i: 0 };
    const reading: Stamped = { record: { ...doc('a.md', 'K1', 'N1', read), rb: after, b: wrote, l: 1, hd: 0, hc: 1 }, c: 11, w: 'B', i: 0 };
    const overtaking: Stamped = { record: { ...doc('a.md', 'K1', 'N1', overtook), rb: after, b: p }, c: 12, w: 'A', i: 0 };
    const state = foldState([written, reading, overtaking]);
    assert.equal(state.entries.get('a.md')?.h, overtook, "A's record is the latest, as ever");
    assert.equal(state.forks.get('K1')?.h, wrote, "B's write is the branch A's overtook");
    assert.equal(foldState(state.live).forks.get('K1')?.h, wrote, 'a compaction keeps it');
    const beforeRecord = foldState([written, reading]);
    assert.equal(beforeRecord.forks.size, 0, 'no fork while only the reading is known');
    assert.equal(foldState([...beforeRecord.live, overtaking]).forks.get('K1')?.h, wrote, "a compaction before A's record came keeps what the reading was made from");
    // Not: a reading of other blocks than the write's, one that does not say it is a reading (l), the reader's own write,
    // a write not made from the version the reading's was, and a record of another version after the write.
    assert.equal(foldState([written, { ...reading, record: { ...(reading.record as DocRecord), rb: other } }, overtaking]).forks.size, 0);
    const { l: _l, hd: _hd, ...exact } = reading.record as DocRecord;
    assert.equal(foldState([written, { ...reading, record: exact }, overtaking]).forks.size, 0);
    assert.equal(foldState([written, reading, { ...overtaking, w: 'B' }]).forks.size, 0);
    assert.equal(foldState([written, reading, { ...overtaking, record: { ...(overtaking.record as DocRecord), b: other } }]).forks.size, 0);
    assert.equal(foldState([written, reading, overtaking, { record: { ...doc('a.md', 'K1', 'N1', other), rb: after, b: overtook }, c: 13, w: 'B', i: 0 }]).forks.size, 0);
  });

  test('a record says a hidden edit (hd) only of a document it says holds more than its source (l), and never beside formatting only (f)', () => {
    const lossy = { ...doc('a.md', 'K1', 'N1', 'a'.repeat(64)), rb: 'b'.repeat(64), l: 1 };
    assert.ok(checkRecord({ ...lossy, hd: 1 }));
    assert.ok(checkRecord({ ...lossy, hd: 0, f: 1 }));
    assert.equal(checkRecord({ ...lossy, hd: 1, f: 1 }), undefined, 'formatting only is no hidden edit');
    assert.equal(checkRecord({ ...lossy, l: undefined, hd: 0 }), undefined, 'without l there is nothing to say');
    assert.equal(checkRecord({ ...lossy, hd: true }), undefined);
  });

  test('whatever order writers, compactions and crashes leave the records in: the same state, one path per document, no creation id lost, and a compaction says the same', () => {
    const paths = fc.constantFrom('a.md', 'b.md', 'c.md', 'd/e.md');
    const keys = fc.constantFrom('K1', 'K2', 'K3', 'K4');
    const record: fc.Arbitrary<StateRecord> = fc.oneof(
      // A document has one creation id; a writer either knows it or does not.
      fc.tuple(paths, keys, fc.boolean(), fc.constantFrom('h1', 'h2', 'h3'), fc.option(keys, { nil: undefined })).map(([p, k, knows, h, rp]) => ({ ...doc(p, k, knows ? `N-${k}` : null, h), ...(rp !== undefined && rp !== k ? { rp } : {}) })),
      fc.tuple(paths, keys).map(([p, k]): StateRecord => ({ t: 'gone', p, k })),
      fc.tuple(paths, keys, fc.constantFrom('h1', 'h2'), fc.nat(50)).map(([p, k, h, a]): StateRecord => ({ t: 'write', p, k, h, a })),
    );
    const stamped = fc.array(fc.record({ record, c: fc.integer({ min: 1, max: 40 }), w: fc.constantFrom('w1', 'w2', 'w3'), i: fc.nat(3) }), { maxLength: 30 });
    fc.assert(
      fc.property(stamped, fc.func(fc.integer()), (records, shuffleKey) => {
        // Duplicates of one stamp can only be copies of one token: keep the first of each.
        const unique = [...new Map(records.map((r) => [`${r.c}/${r.w}/${r.i}`, r])).values()];
        const shuffled = [...unique].sort((a, b) => shuffleKey(a.c * 100 + a.i) - shuffleKey(b.c * 100 + b.i));
        const state = foldState(unique);
        assert.deepEqual(entriesOf(shuffled), entriesOf(unique), 'the order records sit in changes nothing');
        const docKeys = [...state.entries.values()].map((entry) => entry.k);
        assert.equal(new Set(docKeys).size, docKeys.length, 'a document at two paths');
        for (const entry of state.entries.values()) {
          const known = unique.find((r) => r.record.t === 'doc' && r.record.k === entry.k && r.record.n !== null);
          if (known) assert.equal(entry.n, (known.record as DocRecord).n, 'a creation id was lost');
        }
        assert.deepEqual(entriesOf(state.live), entriesOf(unique), 'the compacted records fold to the same state');
        const writesOf = (stamped: readonly Stamped[]) => [...foldState(stamped).writes].sort(([a], [b]) => (a < b ? -1 : 1));
        assert.deepEqual(writesOf(shuffled), writesOf(unique), 'the order records sit in changes no announced write');
        assert.deepEqual(writesOf(state.live), writesOf(unique), 'a compaction keeps every announced write still standing');
        assert.deepEqual([...foldState(shuffled).replacedBy].sort(), [...state.replacedBy].sort(), 'the order records sit in changes no replacement');
        assert.deepEqual([...foldState(state.live).replacedBy].sort(), [...state.replacedBy].sort(), 'a compaction keeps every replacement');
        // A record appended after a compaction sorts against the copies as it would against the originals.
        const late: Stamped = { record: doc('a.md', 'K9', null, 'late'), c: 25, w: 'w9', i: 0 };
        assert.deepEqual(entriesOf([...state.live, late]), entriesOf([...unique, late]), 'a late record after a compaction');
      }),
      { numRuns: 500 },
    );
  });
});
