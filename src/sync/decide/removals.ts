import { blocksHash } from '../../markdown/index.js';
import { contentHash } from '../../markdown/hash.js';
import type { Origin } from '../../ledger/index.js';
import type { Block } from '../../model/blocks.js';
import { joinText, splitText } from '../content/document-text.js';
import { editedUnpublished, newerThanRecord, type BodyFacts, type PublishedVersion } from './body.js';
import { held, type Held } from './held.js';
import type { ReadingMarks, SyncMode } from './types.js';
import { doubtHolds, doubtOf, webEditDoubt, worse, type WebEditsPolicy } from './web-edits.js';
import { standFor } from './read-back.js';
import { plainReading } from './plain-reading.js';


type RecordBase = {
  readonly baseMarkdown: string;
  readonly remoteBlocks: readonly Block[];
  readonly alignment: unknown;
  readonly remoteBlocksHash: string;
  readonly remoteModifiedTime: string;
  readonly lossyBase: boolean;
  readonly formattingOnly?: boolean;
  readonly hiddenBase?: boolean;
  /** The base's front matter was kept across a plain reading (DocumentSummary.headCarried). */
  readonly headCarried?: boolean;
  readonly hiddenEdit: string | null;
  readonly agreedAt?: number;
};

/**
 * Why a document may not be deleted by kbsync, or undefined when it may. A document kbsync created whose
 * creation id it does not hold can only have been learnt from a shared state it cannot verify (no key).
 */
export function deletionBlocked(record: { readonly nodeId: string | null; readonly origin: Origin }): Held | undefined {
  if (record.nodeId !== null) return undefined;
  return held(record.origin === 'create-answer-lost' ? 'CREATE_ANSWER_LOST' : record.origin === 'created' ? 'ID_UNVERIFIED' : 'NOT_CREATED');
}

export type DeleteDecision =
  | { readonly kind: 'delete-remote' }
  | { readonly kind: 'forget' }
  /** `marks`: what the restored file (made from the service's reading) lacks of the document. */
  | { readonly kind: 'restore'; readonly text: string; readonly marks: ReadingMarks }
  | { readonly kind: 'held'; readonly held: Held };

/**
 * A file deleted locally, its document read (or found gone). An edit beats a delete: a document edited
 * since the last sync comes back as a file (two-way) or is held (push-only); one kbsync did not create
 * cannot be deleted through the service, which is held and said.
 */
export function decideDelete(facts: {
  readonly mode: SyncMode;
  readonly record: RecordBase & { readonly nodeId: string | null; readonly origin: Origin };
  readonly remote: readonly Block[] | 'gone';
  /** The document's time in this run's listing, and whether it was renamed or moved (which moves the time too). */
  readonly listedTime?: string;
  readonly relocated?: boolean;
  /** The user said to go ahead (--force): an edit nobody here could see does not stop the delete. */
  readonly force?: boolean;
  /** What a colleague's web-editor edit leaves the restored file short of (merge.webEdits). */
  readonly webEdits: WebEditsPolicy;
}): DeleteDecision {
  if (facts.remote === 'gone') return { kind: 'forget' };
  const edited = blocksHash(facts.remote) !== facts.record.remoteBlocksHash;
  // Edited where reads cannot see (inside code, a table, formatting): the time moved on, the blocks did not;
  // or such an edit was seen before and still stands. Deleting would destroy what the user never saw.
  const laterTime = facts.relocated !== true && facts.listedTime !== undefined && facts.record.remoteModifiedTime !== '' && facts.listedTime > facts.record.remoteModifiedTime;
  const hidden = !edited && facts.force !== true && (laterTime || facts.record.hiddenEdit !== null);
  if (edited || hidden) {
    if (facts.mode === 'push') return { kind: 'held', held: held('DELETE_EDITED') };
    const version = restoredVersion(facts.record, facts.remote, facts.webEdits);
    return { kind: 'restore', text: version.text, marks: { ...version.marks, hiddenEdit: facts.record.hiddenEdit ?? (hidden ? (facts.listedTime ?? null) : null) } };
  }
  const blocked = deletionBlocked(facts.record);
  if (blocked) return { kind: 'held', held: blocked };
  // The document holds more than the file ever showed (a colleague's edit inside code, read back as `unknown`):
  // a delete would destroy what nobody here saw, and a backup made from reads cannot keep it (model seed 1015).
  // (Formatting of words a colleague wrote goes as an overwrite's would, when merge.webEdits lets it.)
  if (doubtHolds(doubtOf({ ...facts.record, hiddenEdit: null }), facts.webEdits) && facts.force !== true) return { kind: 'held', held: held('DELETE_LOSSY') };
  return { kind: 'delete-remote' };
}

/** `none`, `waiting`: nothing decided yet (the deleter's `gone` may be on its way: decideTrash); the next run decides it. */
export type TrashDecision =
  | { readonly kind: 'trash-local' }
  | { readonly kind: 'forget' }
  | { readonly kind: 'recreate' }
  | { readonly kind: 'held'; readonly held: Held }
  | { readonly kind: 'none'; readonly waiting: true };

/**
 * A document deleted remotely, its file read: an edited file wins and gets a new document; an unchanged one goes to
 * the trash. Unchanged since its record, the file may still hold an edit the deleting writer never saw: when that
 * record never reached the shared state (`unpublished`: its front matter, issue 44), or when it is a version made from
 * the very one that writer deleted (`deleted`, its `gone` record's `h`): the service has no conditional delete, and
 * this machine's write landed after that writer's last look, just before its delete (convergence soak 754).
 *
 * That `gone` comes only as its writer's run ends, after its other actions: a run that finds the document deleted
 * before it (`goneMayCome`: none in the state it read, and this version of the document a minute or two old then) can
 * not tell yet, and trashed such an edit all the same. Where the `gone` could save it (a version made from another),
 * the file waits for the next run (nothing decided), which has it, or, once the two minutes are over, none will come
 * (a colleague's delete in the web editor writes none): the file goes then.
 */
export function decideTrash(facts: {
  readonly mode: SyncMode;
  readonly localHash: string;
  readonly fileText: string | undefined;
  readonly unpublished?: BodyFacts['unpublished'];
  /** The version the record's own was made from (ledger builtOn). */
  readonly builtOn?: string | null;
  /** The version the deleting writer deleted (GoneRecord `h`); absent: not said (a kbsync from before it, or no `gone` read). */
  readonly deleted?: string;
  /** No `gone` of the document read yet, and its deleter's may still come (this version was written lately). */
  readonly goneMayCome?: boolean;
}): TrashDecision {
  if (facts.fileText === undefined) return { kind: 'forget' };
  if (contentHash(facts.fileText) === facts.localHash && !editedUnpublished(facts.fileText, facts.unpublished) && !madeAfterDelete(facts)) {
    return awaitsGone(facts) ? { kind: 'none', waiting: true } : { kind: 'trash-local' };
  }
  return facts.mode === 'pull' ? { kind: 'held', held: held('TRASH_EDITED') } : { kind: 'recreate' };
}

/**
 * Whether the record's version is a later one made from the version the deleting writer deleted: that writer knew
 * the document as that version alone, so this one's change reached it after its last look. Where it deleted this very
 * version, or one this was not made from (a later one, which took this in), it deleted knowingly: the delete stands.
 */
const madeAfterDelete = (facts: { readonly localHash: string; readonly builtOn?: string | null; readonly deleted?: string }): boolean =>
  facts.deleted !== undefined && facts.builtOn === facts.deleted && facts.localHash !== facts.deleted;

/** Whether a `gone` still to come could name the version this record's was made from (madeAfterDelete): one made from another. */
const awaitsGone = (facts: { readonly localHash: string; readonly builtOn?: string | null; readonly deleted?: string; readonly goneMayCome?: boolean }): boolean =>
  facts.goneMayCome === true && facts.deleted === undefined && typeof facts.builtOn === 'string' && facts.builtOn !== facts.localHash;

/** Another writer's version that is later than this record and of the very blocks the document holds: the page as it stands. */
export const standsOverRecord = (published: PublishedVersion, record: RecordBase, remote: readonly Block[]): boolean =>
  newerThanRecord(published, record) && standFor(remote, published.remoteBlocksHash, published.text);

/**
 * The last-synced file with the remote's edits applied, so local formatting survives where it can; or, when
 * another kbsync writer's later record describes what the document holds now, that writer's Markdown: reads
 * cannot show all of it (model seed 100020: a rewrapped line, published by one machine, never reached the
 * other, which restored the file it had deleted from its own older text). `lossy`: the document holds more than
 * the text (`marks`: the web edit's doubt, merge.webEdits, over what the version was in doubt of already).
 */
export function restoredVersion(
  record: RecordBase,
  remote: readonly Block[],
  webEdits: WebEditsPolicy,
  published?: PublishedVersion,
): { readonly text: string; readonly marks: Omit<ReadingMarks, 'hiddenEdit'>; readonly writtenAt?: string } {
  if (published && standsOverRecord(published, record, remote)) {
    const marks = { lossy: !published.exact, formattingOnly: !published.exact && published.formattingOnly === true, hiddenBase: published.hidden === true, headCarried: published.headCarried === true };
    // The minute that writer wrote it in: a listed time no later is its write, not someone's hidden edit.
    return { text: published.text, marks, ...(published.modifiedTime !== '' ? { writtenAt: published.modifiedTime } : {}) };
  }
  const base = splitText(record.baseMarkdown);
  const body = plainReading(record, remote);
  const edited = blocksHash(remote) !== record.remoteBlocksHash;
  const doubt = worse(doubtOf({ ...record, hiddenEdit: null }), edited ? webEditDoubt(webEdits, { remoteBase: record.remoteBlocks, remote, theirs: body }) : 'none');
  return { text: joinText(base.head, body), marks: { lossy: doubt !== 'none', formattingOnly: doubt === 'formatting', hiddenBase: doubt === 'content' && record.lossyBase && record.hiddenBase === true, headCarried: edited || record.headCarried === true } };
}
