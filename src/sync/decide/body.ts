import { appendOnlyChange, blocksHash, hasPlaceholders, merge3, outline, placeholdersBeyond, predictedBlocks, toPushMarkdown, type AppendChange, type Alignment, type Conflict } from '../../markdown/index.js';
import { mergeSources } from '../../markdown/merge-source.js';
import { segmentBody } from '../../markdown/segments.js';
import { lineEndingsOf, mergedLineEndings, withLineEndings } from '../../markdown/line-endings.js';
import { contentHash } from '../../markdown/hash.js';
import type { Block } from '../../model/blocks.js';
import type { UrlOfPath } from '../content/links.js';
import { decodeSentImages, imagesDiffer } from '../../images/sent.js';
import type { SentImage } from '../../images/types.js';
import { joinText, splitText } from '../content/document-text.js';
import { held, type Held } from './held.js';
import { pushMarkdown } from './push-markdown.js';
import type { DecisionKind, SyncMode } from './types.js';
import { doubtHolds, doubtOf, webEditDoubt, worse, type Doubt, type WebEditsPolicy } from './web-edits.js';
import { standFor } from './read-back.js';
import { saysMoreThan } from '../../remote-state/state.js';

/** What one synced document's file and body are now, beside what they were when both sides last agreed. */
export type BodyFacts = {
  readonly mode: SyncMode;
  readonly force: boolean;
  /** What a colleague's web-editor edit leaves kbsync free to publish over (web-edits.ts). */
  readonly webEdits: WebEditsPolicy;
  readonly path: string;
  readonly record: {
    readonly baseMarkdown: string;
    readonly remoteBlocks: readonly Block[];
    readonly alignment: unknown;
    readonly localHash: string;
    readonly remoteBlocksHash: string;
    /** After our own write: the body the document held before it (a revert to it is a lost update). */
    readonly publishedOver?: string | null;
    /** The listed time at which an edit of what the service hides was seen (no overwrite until a person says so). */
    readonly hiddenEdit?: string | null;
    /** The base is the service's plain-text reading: an overwrite from it would flatten the document. */
    readonly lossyBase?: boolean;
    /** With `lossyBase`: all it lacks is the formatting of words a colleague wrote (merge.webEdits decides). */
    readonly formattingOnly?: boolean;
    /** With `lossyBase`: the base is another writer's version whose record said it holds a hidden edit (DocRecord `hd`). */
    readonly hiddenBase?: boolean;
    /** The service's clock (ms) when this machine agreed on this version; 0 or absent: unknown. */
    readonly agreedAt?: number;
    /** The base's front matter was kept across a plain reading of a change no record explained (DocumentSummary.headCarried). */
    readonly headCarried?: boolean;
    /** The front matter this machine's own last change of it replaced (DocumentBody.replacedHead). */
    readonly replacedHead?: string | null;
    /** The version (its source's hash) this one was made from, where it was known exactly (DocumentBody.builtOn). */
    readonly builtOn?: string | null;
    /** The base's body is this machine's layout of a change it took in from the plain reading (DocumentSummary.readPlainly). */
    readonly readPlainly?: boolean;
    readonly remoteModifiedTime?: string;
    readonly recheck?: boolean;
    /** The images the document was last sent with (the ledger's JSON text). */
    readonly imagesSent?: string | null;
  };
  /** The document's modifiedTime in this run's listing, when it was listed. */
  readonly listedTime?: string;
  /** The listing shows the document renamed or moved since the last agreement (which moves its time too). */
  readonly relocated?: boolean;
  /** With `relocated`: moved to another folder, so the file's path is the document's new place (a rename alone keeps it). */
  readonly moved?: boolean;
  /**
   * The listed time is of the last two minutes by the service's clock now (state/minutes.ts underAMinuteOld): the
   * kbsync writer whose write made it may still be writing (a first body: decideUnfilled).
   */
  readonly listedLately?: boolean;
  /**
   * The listed time was of the last two minutes by the service's clock as this run read the shared state (now, where
   * it read none): the kbsync writer whose write moved it may have published its record since, unread here (it does
   * right after its write). The clock as the document is decided on cannot tell: the state was read before it
   * (convergence soak 738: a sweep read the state a moment before another machine's record of its code edit came,
   * the clock passed that record's two minutes before the sweep read the page, and it said HIDDEN_EDIT, "merge your
   * change in the web editor", of that machine's own write, which its next sweep took in from the record).
   */
  readonly recordMayCome?: boolean;
  /**
   * The record was rebound in this run to the document another kbsync writer made in place of its own (follow.ts):
   * this is that document's first read, the record's blocks are the old document's, and its time is the minute that
   * writer's record gave ('' while that record said no body yet).
   */
  readonly followed?: boolean;
  /**
   * The document reads empty, and its latest record in the shared state is another writer's of its ids alone: that
   * writer made it (a move, a re-creation: made empty, its ids recorded, then its first body sent) and its body is
   * still to come. The emptiness is nobody's edit (decideUnfilled).
   */
  readonly bodyComing?: boolean;
  /**
   * The version of the document another kbsync writer published since (its kept source), when the shared
   * state has one that differs from this record's: the merge then works from that Markdown, not from the
   * service's plain reading.
   */
  readonly published?: PublishedVersion;
  /**
   * Set when the record's text never reached the shared state (its append failed, or the run was killed before
   * it) and no other writer published that text: what this machine last published of the file, all the others
   * know of it (undefined: nothing). Front matter and line endings reach them through the state alone, so a
   * change of them since is this machine's own edit, merged against another writer's version (issue 44).
   */
  readonly unpublished?: { readonly lastPublished: string | undefined };
  /**
   * Another branch of the version this record was made from (ledger builtOn, DocRecord `b`): another writer's
   * version made from that very one without knowing this record's, one of which a write overwrote unseen (the
   * service has no conditional write). `base`: that version's text (undefined: the sources do not have it);
   * `branch`: the other version, as its record says it. See withBranch.
   */
  readonly fork?: { readonly base: string | undefined; readonly branch: PublishedVersion };
  /** The file now. */
  readonly fileText: string;
  /** The document's blocks now. */
  readonly remote: readonly Block[];
  /** With link rewriting: the URL of the synced document at a path. */
  readonly urlOf: UrlOfPath | undefined;
};

/** What another kbsync writer last published of a document, from the shared state. */
export type PublishedVersion = {
  /** The file text it synced (its kept source). */
  readonly text: string;
  /** What the document's blocks hashed to right after. */
  readonly remoteBlocksHash: string;
  /** The latest minute its write can bear as modifiedTime ('' unknown): a later one is someone else's edit. */
  readonly modifiedTime: string;
  /** The document held exactly that source right after (an overwrite from it, not a merge from a plain reading). */
  readonly exact: boolean;
  /** Not exact, but all it lacked was the formatting of words a colleague wrote in the web editor (DocRecord `f`). */
  readonly formattingOnly?: boolean;
  /**
   * Not exact, and what it lacks is an edit reads cannot show, which its writer found (DocRecord `hd`), not a
   * visible edit it took in as plain text on a page reads cannot show whole (or a record from before `hd`).
   */
  readonly hidden?: boolean;
  /** The service's clock (ms) when that writer agreed on it; 0 unknown. */
  readonly agreedAt: number;
  /** The file's path in that writer's record: where the document was when it was written (unknown: undefined). */
  readonly path?: string;
  /** Its front matter is what that writer's file had before it read a change of the document plainly (DocRecord `hc`). */
  readonly headCarried?: boolean;
  /** The version (its source's hash) that writer made it from, where it knew it exactly (DocRecord `b`). */
  readonly builtOn?: string;
  /** Its body is that writer's layout of a change it took in from the plain reading (DocRecord `pr`), not a source. */
  readonly readPlainly?: boolean;
};

/** The decisions a body can come to, in the words of every decision (types.ts). */
export type BodyDecisionKind = Extract<DecisionKind, 'none' | 'push' | 'pull' | 'merge' | 'conflict' | 'held'>;

/** `images`: the images the overwrite carries (recorded with it, so a changed image is seen next time). */
export type Send = { readonly markdown: string; readonly append: AppendChange | undefined; readonly images?: readonly SentImage[] };

/** Everything the run needs to carry the decision out, computed without a single effect. */
export type BodyDecision = {
  readonly kind: BodyDecisionKind;
  readonly held?: Held;
  readonly localChanged: boolean;
  readonly remoteChanged: boolean;
  /** The file's text after the run (the same as now unless the remote's edits are written into it). */
  readonly fileText: string;
  /** Set when the file is rewritten. */
  readonly nextFile: string | undefined;
  /** Set when both sides changed a block differently: the other side's version, written beside the file. */
  readonly conflictCopy: string | undefined;
  /**
   * Set with `conflictCopy`: the text the clash was found against (front matter and body, each as its merge had it),
   * kept with the conflict for kbsync resolve, which lists the clashing regions of file and copy against it. Another
   * branch's merge finds its clash against the version both branches were made from, not this record's base: against
   * that, one side reads as unchanged, and resolve listed no clash and settled the line for the other side unasked.
   */
  readonly conflictBase: string | undefined;
  readonly conflicts: readonly Conflict[];
  /** Set when the document is written: the append, or else the Markdown of the overwrite. */
  readonly send: Send | undefined;
  /** The remote's version in the file's own Markdown source (what the document says now, as the file would say it). */
  readonly theirs: string;
  /** The text recorded as what both sides agreed on. */
  readonly baseText: string;
  /** Lines of the written file where a remote text edit replaced formatting with plain text (FORMATTING_SIMPLIFIED). */
  readonly simplified: readonly number[];
  /**
   * Lines of the written file whose words a colleague wrote in the web editor, taken from the plain reading of a
   * document kbsync now counts as known (merge.webEdits): formatting they gave them there is not in the file, and
   * the next push writes them as the file has them (FORMATTING_UNSEEN, said once).
   */
  readonly unseenFormatting: readonly number[];
  /**
   * Lines of the written file that our last write gave and another writer's overwrite, made from a copy read
   * before that write landed, put back (a lost update): the file keeps them and this decision publishes them
   * again (LOST_UPDATE_REPAIRED, said once), or they wait in the file while the push is held.
   */
  readonly restored: readonly number[];
  /** Set while someone's edit of what the service does not show stands: the listed time it was seen at. */
  readonly hiddenEdit: string | null;
  /** Set when this run is the first to see that hidden edit (said once). */
  readonly hiddenEditSeen: boolean;
  /**
   * After this decision, the document holds something kbsync cannot read back (a web editor's formatting, a
   * colleague's edit seen only as plain text): an overwrite from the file would destroy it (FLATTEN).
   */
  readonly lossy: boolean;
  /** With `lossy`: all the document holds beyond the file is formatting of words a colleague wrote (merge.webEdits). */
  readonly formattingOnly: boolean;
  /** With `lossy`: the document holds a hidden edit another writer found (the file takes its version): `hd` when published. */
  readonly hiddenBase: boolean;
  /**
   * The file keeps this machine's own change that never reached the shared state (BodyFacts.unpublished) over
   * another writer's later version: a version agreed now, which the publish step must not take for older than
   * that writer's record (it would never be published, and the change would stay on this machine alone).
   */
  readonly keptUnpublished: boolean;
  /**
   * Set when this run first learns, from another kbsync writer's record, that the document holds an edit reads
   * cannot show, which that writer found (DocRecord `hd`): the file takes that version and cannot show it. Said
   * once, as HIDDEN_EDIT is (model seed 5033). A version that writer took in from a plain reading of a page reads
   * cannot show whole is not: it said nothing of it, and neither does this machine, which holds the next
   * overwrite as it does (FLATTEN).
   */
  readonly hiddenVersionSeen: boolean;
  /** The new base's front matter is not known from the document's writer (DocumentSummary.headCarried). */
  readonly headCarried: boolean;
  /** The new base's body is this machine's layout of a change taken in from the plain reading (DocumentSummary.readPlainly). */
  readonly readPlainly: boolean;
  /** The front matter this machine's own change replaced, for the new base (DocumentBody.replacedHead). */
  readonly replacedHead: string | null;
  /** The version (its source's hash) the new one is made from, where the document was known to hold it exactly (DocumentBody.builtOn). */
  readonly builtOn?: string;
  /**
   * Set when the document's time moved a moment ago while every block it shows stayed, and no record explains it
   * yet: another kbsync machine's write (a change inside code, a body sent again) whose record is on its way, or
   * someone's edit where reads cannot see. Nothing is decided or recorded, so the next run, once that record had time
   * to come, reads it again and tells them apart (soak seed 500: a machine that read between another's write and its
   * record said HIDDEN_EDIT of an edit nobody made in the web editor). A file's edit to send waits too, held
   * JUST_EDITED so that it is said (mayWaitForRecord).
   */
  readonly waiting?: true;
  /**
   * The blocks read are exactly another writer's version (its record's), and the listed time is no later than the
   * minute that writer's record gives its write: the read shows nothing the listing's time does not stand for. A
   * save the document's time shows after the listing is then none the read could show (act/apply-body.ts readingTime).
   */
  readonly listedVersion?: true;
  /**
   * The listing may show the document before the version the read shows was written: the first read of a document
   * another writer made in place of the record's own (BodyFacts.followed), listed before the minute that writer's
   * record gives its write, or before that record said any (the document is made empty, its first body sent after).
   * The blocks read as the record's, so the read seems to show nothing the listing did not; taken for the time of
   * what was read, that listing's minute made the document's own time, at the next listing, an edit reads cannot
   * show (soak seed 714: HIDDEN_EDIT said by both machines, and every later edit of the prose page held for good).
   */
  readonly listedEarly?: true;
};

/** Another writer's version agreed on the very blocks this record did. */
const ofSameBlocks = (published: PublishedVersion, record: Pick<BodyFacts['record'], 'remoteBlocksHash'>): boolean => published.remoteBlocksHash === record.remoteBlocksHash;

/**
 * Another writer's version whose front matter is the one its file had before it read this record's very blocks
 * plainly (`hc`), where this record knows its own from its writer: the front matter that reading could not see.
 */
const carriedOver = (published: PublishedVersion | undefined, record: Pick<BodyFacts['record'], 'remoteBlocksHash' | 'headCarried'>): boolean =>
  published?.headCarried === true && record.headCarried !== true && ofSameBlocks(published, record);

/**
 * Whether another writer's version is the document's latest, against this record. The state's entry is the
 * document's latest record by stamp; only one agreed on clearly before ours (a record published late) is an older
 * version (newerThanRecord: each machine knows the service's clock from a Date header, ±1 s, so agreements closer
 * than AGREED_SLACK_MS cannot be told apart by it, and the stamps decide). But of two versions of the very blocks
 * this record agreed on, one a plain reading that kept its front matter (`hc`), their writer's exact record says
 * more, whichever was agreed first (soak seed 502: a machine read another's write before its record came; the
 * writer's front matter never reached it, then was lost to its next edit). Where this record knows its body, only a
 * version whose body is this record's: an exact one with another body is a write of its own, whose change reads
 * cannot show (code, a link's address), and the agreements' times decide (model seed 4011: a machine whose front
 * matter was carried published a code edit; the other machine, its own exact record of the same blocks taken to say
 * more, kept its old code, and a CI run of its files then wrote it back over the edit). A record in doubt of its body
 * (a plain reading of those very blocks) cannot tell a write of another body from the one it read: the exact record
 * says what it could not see, whichever was agreed first (model seed 6034: a machine read another's write of a code
 * line and bold words, plainly, before its writer, stopped after the write, published its record a minute later; the
 * reading, agreed after the write, stood, and the code line stayed on the writer's machine alone; model seed 9006
 * and soak seed 715 found it too, with formatting: the machines' files differed for good).
 */
function newerVersion(published: PublishedVersion, record: Pick<BodyFacts['record'], 'remoteBlocksHash' | 'baseMarkdown' | 'localHash' | 'builtOn' | 'headCarried' | 'lossyBase' | 'hiddenBase' | 'hiddenEdit' | 'agreedAt' | 'readPlainly'>): boolean {
  if (madeFromRecord(published, record) || sourceOfReading(published, record)) return true;
  const recordInDoubt = record.lossyBase === true && record.hiddenBase !== true && record.hiddenEdit == null;
  const rewritten = !recordInDoubt && published.exact && splitText(published.text).body !== splitText(record.baseMarkdown).body;
  const same = ofSameBlocks(published, record) && !rewritten;
  // Of two versions of the very same blocks, the one that says more is the later, as the fold and the publish step
  // judge it (remote-state/state.ts saysMoreThan); otherwise the agreements' times decide.
  const publishedInDoubt = !published.exact && published.hidden !== true;
  if (same && saysMoreThan({ exact: published.exact, carried: published.headCarried === true }, { carried: record.headCarried === true, inDoubt: recordInDoubt })) return true;
  if (same && saysMoreThan({ exact: record.lossyBase !== true, carried: record.headCarried === true }, { carried: published.headCarried === true, inDoubt: publishedInDoubt })) return false;
  return newerThanRecord(published, record);
}

/**
 * Another writer's exact version of the very blocks this record took in from the plain reading, made from the very
 * version this record was (both `b`): the write this machine read before its writer's record came, and laid out as
 * its own Markdown writer lays those blocks out. That text is the document's source, whichever was agreed first
 * (convergence soak 741: a list item whose second line that writer's user had left lazy stayed indented here for
 * good, agreed later, and the two files never converged). A version that writer read plainly too (`pr`) is no source.
 */
const sourceOfReading = (published: PublishedVersion, record: Pick<BodyFacts['record'], 'remoteBlocksHash' | 'baseMarkdown' | 'builtOn' | 'readPlainly'>): boolean =>
  record.readPlainly === true &&
  published.exact &&
  published.readPlainly !== true &&
  published.builtOn !== undefined &&
  published.builtOn === record.builtOn &&
  published.text !== record.baseMarkdown &&
  ofSameBlocks(published, record);

/**
 * A hidden edit this record found (the document's time past the minute a writer announced its write in, every
 * block as that write left it) that a writer's exact record accounts for, of a minute no earlier than the edit's:
 * - a record of the very version the record holds: the write landed in a later minute than announced (a slow
 *   queue), and the record says the minute its writer saw after it. Taken for someone's edit inside code, it was
 *   published as one, and every machine held each later edit of the page (soak seed 502, a prose page);
 * - a record of a version made from the one the record holds (DocRecord `b`), of the very blocks the hidden edit
 *   was seen on: that writer's change is one reads cannot show (code, a fence's info), and this machine read its
 *   write before the record came. Kept, the hold outlived the record that explains it, and the version this machine
 *   then took in was published as holding a hidden edit: the other machine took its own write back as one (soak
 *   seed 723, with a colleague's words saved in that minute, which the merge takes in as any web edit).
 * As with any minute a writer's record vouches for, an edit made in that very minute after the write cannot be
 * told from it.
 */
const explainsHidden = (published: PublishedVersion | undefined, record: BodyFacts['record']): boolean =>
  record.hiddenEdit != null &&
  published !== undefined &&
  published.exact &&
  (published.text === record.baseMarkdown ? published.remoteBlocksHash === record.remoteBlocksHash : hiddenWriteOf(published, record)) &&
  published.modifiedTime !== '' &&
  !laterThan(record.hiddenEdit, published.modifiedTime);

/** Another writer's version made from this record's that reads as the blocks this record holds: its change is one reads cannot show. */
const hiddenWriteOf = (published: PublishedVersion, record: BodyFacts['record']): boolean =>
  madeFromRecord(published, record) && standFor(record.remoteBlocks, published.remoteBlocksHash, published.text);

/** The blocks a read cannot show the content of (code, images, what the service does not expose). */
const unreadable = (blocks: readonly Block[]): number => blocks.filter((block) => block.type === 'unknown').length;

/** The sources of a body's blocks that reads cannot show (code, HTML, images), in order. */
const unreadSources = (body: string): string => {
  const nodes = outline(body).filter((node) => node.type === 'unknown');
  return JSON.stringify(nodes.map((node) => body.slice(node.source.start, node.source.end)));
};

/** How far apart two machines' readings of the service's clock can be (a Date header's second, plus latency). */
export const AGREED_SLACK_MS = 2_000;

/**
 * Whether another writer's version was made from this record's very version (DocRecord `b`), and not the other way
 * round: a later version of it, whatever order the two were agreed in (model seed 5995: a machine pulled a page from
 * its writer's first record a minute after that writer's write of emphasis, which reads cannot show, landed; its
 * agreement, the later, kept the plain word for good).
 */
const madeFromRecord = (published: PublishedVersion, record: Pick<BodyFacts['record'], 'baseMarkdown' | 'localHash' | 'builtOn'>): boolean =>
  published.builtOn !== undefined && published.builtOn === record.localHash && published.text !== record.baseMarkdown && record.builtOn !== contentHash(published.text);

/** Another writer's version is the document's latest unless agreed on clearly before this record (AGREED_SLACK_MS). */
export const newerThanRecord = (published: PublishedVersion, record: { readonly agreedAt?: number }): boolean =>
  !record.agreedAt || published.agreedAt > record.agreedAt - AGREED_SLACK_MS;

/** Minute stamps (`2026-11-22T10:05Z`) order as strings; '' is unknown and later than nothing. */
export const laterThan = (listed: string | undefined, bound: string): boolean => listed !== undefined && bound !== '' && listed > bound;

/** A file truncated to nothing (a save caught half-way, a failed copy) must not silently wipe its document. */
const emptied = (text: string, base: string): boolean => text.trim() === '' && base.trim() !== '';

/**
 * What the document holds now, in Markdown, as well as kbsync can tell, and the file merged with it:
 * - the remote is as last agreed: the base (exactly, unless the base was already lossy or someone edited
 *   where reads cannot see since: the document's time moved past the one agreed on while its blocks did not);
 * - another kbsync writer published it: that writer's source, exactly when the document is still as it left
 *   it, else its source with the later (plain) edits merged in; the file is merged with it in source;
 * - someone edited it in the web editor: the base with the plain reading's changes merged in, lossy (the
 *   reading flattens formatting and hides code and tables, so the document holds more than this says).
 */
type Reading = {
  readonly theirs: string;
  /** The other writer's front matter, when its version is what the document holds. */
  readonly theirsHead?: string;
  readonly merged: {
    readonly body: string;
    readonly conflicts: readonly Conflict[];
    readonly conflictCopyBody: string | undefined;
    readonly simplified: readonly number[];
    /** Lines of `body` whose words came from the web editor through the plain reading (MergeResult.fromReading). */
    readonly fromReading: readonly number[];
    /** Lines of `body` our last write gave, which a racing writer's stale copy put back (MergeResult.restored). */
    readonly restored: readonly number[];
  };
  /** What kbsync does not know of what the document holds beyond `theirs` ('none': it holds exactly that). */
  readonly doubt: Doubt;
  /** Someone edited where reads cannot see, since the version `theirs` stands for. */
  readonly hidden: boolean;
  /** `theirs` is another writer's version whose record says the document holds a hidden edit beyond it (`hd`). */
  readonly hiddenInVersion?: boolean;
  /** The document holds exactly another writer's version, written after the hidden edit this record knows: that edit is gone. */
  readonly overwroteHidden?: boolean;
  /** Its time moved a moment ago with nothing to explain it yet (BodyDecision.waiting; mayWaitForRecord). */
  readonly waiting?: boolean;
  /** `theirs` is the service's plain reading of a change no writer's record explains: its front matter is not known. */
  readonly plain?: true;
  /** The blocks read are `theirs`, another writer's version whose minute the listed time does not pass (BodyDecision.listedVersion). */
  readonly listedVersion?: boolean;
  /** The body `merged` was merged against, where not the record's: another branch's (withBranch). */
  readonly against?: string;
};

/**
 * A move in the web editor this machine had not listed, which another writer had already followed: its record has
 * the document at the path the move gives this file, so the move came no later than that record's minute, and a
 * time past that minute is a later edit, not the move (model seed 73503: another machine's write of a link's
 * address, its record not yet published, made after the colleague's move that a third record had followed, was
 * taken for that move, and this machine's push of its file's edit overwrote it). A rename alone keeps the file's
 * path, which then tells nothing of when it came: the rename explains the time, as ever.
 */
const followedMove = (published: PublishedVersion | undefined, facts: Pick<BodyFacts, 'moved' | 'path' | 'listedTime'>): boolean =>
  facts.moved === true && published !== undefined && published.path === facts.path && published.modifiedTime !== '' && laterThan(facts.listedTime, published.modifiedTime);

/** The file's body as the merge's result when there is nothing to merge into it (the document says what the file does, or nothing new). */
const unmerged = (body: string): Reading['merged'] => ({ body, conflicts: [], conflictCopyBody: undefined, simplified: [], fromReading: [], restored: [] });

/**
 * A time no record explains yet, moved in the two minutes a writer's record may still come in (recordMayCome), is
 * judged by a later run: nothing is decided or recorded now. So is a file's edit to send, which waits with it
 * (JUST_EDITED): decided at once, the time was taken for someone's edit where reads cannot see, the edit went out as
 * an append (safe over such an edit) and a hidden edit was said and recorded, of another kbsync machine's write whose
 * record came a moment later (convergence soak 762: the page then held HIDDEN_EDIT on both machines); an overwrite was
 * held HIDDEN_EDIT for good the same way. The wait ends with the record (that machine's version merged, the file
 * sent) or with the two minutes (a colleague's edit: said, and kept). Not with --force, which overwrites either way,
 * nor once a hidden edit stands: this time changes nothing of what is held.
 */
const mayWaitForRecord = (facts: BodyFacts, localChanged: boolean): boolean => facts.recordMayCome === true && facts.record.hiddenEdit == null && !(localChanged && facts.force);

function readingOf(facts: BodyFacts, base: string, local: string, remoteChanged: boolean, localChanged: boolean): Reading {
  const { record, remote, listedTime, published } = facts;
  const unmoved = facts.relocated !== true;
  const priorBase = record.publishedOver ?? undefined;
  const current = published !== undefined && standFor(remote, published.remoteBlocksHash, published.text);
  // The other branch the document holds (heldBranch) is its latest version, whatever order the two were agreed in.
  // A record of our own new document, never filled (madeUnfilled), agreed on nothing the document held: a version it
  // stands for now was written into it after, whatever its agreement's time (a follower that filled it with the page
  // it had keeps the time it agreed on that page in the old document), and its very text, the page the record carries,
  // is news too. Taken plainly, reads showed its code as placeholders, and the next edit was held (issue 44).
  const unfilled = madeUnfilled(record);
  const newer = published !== undefined && ((current && (isBranch(published, facts.fork) || readAsMade(record) || unfilled)) || newerVersion(published, record));
  // Or its very text, exactly, where this record is a reading in doubt of it: that writer's record says what the reading
  // could not (convergence soak 753: a plain reading of a write that was that writer's very text, its code filled in
  // from this machine's copy, kept its doubt after the record came, and held the next edit of the page FLATTEN for good).
  const vouched = published !== undefined && published.exact && current && record.lossyBase === true && published.text === record.baseMarkdown;
  const other = published !== undefined && newer && (published.text !== record.baseMarkdown || unfilled || vouched) ? splitText(published.text).body : undefined;
  // Another writer's version, when the document changed since ours (visibly, or only in its time: a change
  // inside code or a link's address reads the same) and that writer's record can account for it.
  if (other !== undefined && published && (remoteChanged || current)) {
    // What the web editor did to that version since, merged into it as that writer would have merged it.
    const stage = current ? undefined : merge3({ base: other, remoteBase: predictedBlocks(other), remote, local: other });
    const theirs = stage ? (stage.conflictCopyBody ?? stage.body) : other;
    // A version agreed on the very blocks our last write left was read after that write: what it holds of the text
    // before it is no racing save's footprint (soak seed 601: another machine read our rewrapped line plainly, kept
    // its own one-line source, and every run here "repaired" it with the same write, without end).
    const merged = mergeSources({ base, local, theirs, ...(priorBase !== undefined && !ofSameBlocks(published, record) ? { priorBase } : {}) });
    // Lines of the stage's merge (in `theirs`), as they stand in the merged body.
    const inMerged = (lines: readonly number[] | undefined): number[] => {
      const wanted = new Set(lines);
      return [...merged.theirsLines].filter(([index]) => wanted.has(lineOfBlock(theirs, index))).map(([, line]) => line);
    };
    // A rename or move this machine had not listed explains a later time, unless that writer's record already
    // has the document where it is now: then it came before the record (seed 100106: a colleague's code edit,
    // made after another machine had followed the colleague's move, was overwritten by this machine's merge).
    // Only a move to another folder changes where the file is (BodyFacts.moved): a rename leaves the path that
    // writer's older record has too (model seed 7421: another machine's append, read after a rename, was said
    // HIDDEN_EDIT of a page nobody had edited beyond words).
    const unexplained = current && (unmoved || (published.path === facts.path && facts.moved === true)) && laterThan(listedTime, published.modifiedTime);
    // Judged once the next writer's record had time to come, as a time past this record's is (soak seed 723: that
    // writer's change inside code, read before its record, was said HIDDEN_EDIT of a page nobody had edited).
    // Not with another branch to merge (BodyFacts.fork): it is found only while its record is the document's latest,
    // and a run that waited could find it gone and take that branch's change for undone (model seed 8506).
    const waiting = unexplained && mayWaitForRecord(facts, localChanged) && facts.fork === undefined;
    const hidden = unexplained && !waiting;
    // Web edits since that version add their own doubt (merge.webEdits).
    const since = stage === undefined ? 'none' : webEditDoubt(facts.webEdits, { remoteBase: predictedBlocks(other), remote, theirs });
    return {
      ...(waiting ? { waiting } : {}),
      theirs,
      theirsHead: splitText(published.text).head,
      merged: { body: merged.body, conflicts: merged.conflicts, conflictCopyBody: merged.conflictCopyBody, simplified: inMerged(stage?.simplified), fromReading: inMerged(stage?.fromReading), restored: merged.restored },
      doubt: hidden ? 'content' : worse(doubtOfVersion(published), since),
      hidden,
      hiddenInVersion: published.hidden === true,
      overwroteHidden: current && published.exact && !hidden && record.hiddenEdit != null && laterThan(published.modifiedTime, record.hiddenEdit),
      listedVersion: current && listedTime !== undefined && published.modifiedTime !== '' && !laterThan(listedTime, published.modifiedTime),
    };
  }
  // The document shows exactly what the file would publish: our own write of this very text whose record was
  // lost (a run killed after the write, a CI job's state append lost). Nothing to send, and nothing to take in.
  // Only where reads can tell: a block they do not show (code, an image) new since the recorded reading may
  // hold anyone's content (model seed 20014: a colleague's new code block was taken for the file's own, and
  // the file's was never sent).
  // Nor where the file's own edit is one reads cannot show (model seed 150060: a colleague's HTML comment, typed
  // where the file's own went and reading the same, was taken for this machine's, and the file's was never sent).
  if (remoteChanged && blocksHash(remote) === blocksHash(predictedBlocks(local)) && unreadable(remote) <= unreadable(record.remoteBlocks) && unreadSources(local) === unreadSources(base)) {
    return { theirs: local, merged: unmerged(local), doubt: 'none', hidden: false };
  }
  if (!remoteChanged) {
    // Another kbsync wrote this very text again since (a forced push, a re-push of many notes): its record, of a
    // known minute no earlier than the listing's, accounts for the time that moved. Taken for someone's edit where
    // reads cannot see, it was said as a hidden edit of notes nobody had edited.
    // Whatever the order of the two agreements: this machine may have agreed after that write on a time listed
    // before it (a rename followed a moment after the other machine's resend of the page; soak seed 502), and the
    // listed time no later than that writer's minute is its write, as in any record of the same minute.
    const rewritten =
      published !== undefined && published.exact && current && published.text === record.baseMarkdown && published.modifiedTime !== '' && !laterThan(listedTime, published.modifiedTime);
    const unexplained = (unmoved || followedMove(published, facts)) && !rewritten && laterThan(listedTime, record.remoteModifiedTime ?? '');
    // Judged once the writer's record had time to come, a file's edit to send waiting with it (mayWaitForRecord).
    const waiting = unexplained && mayWaitForRecord(facts, localChanged);
    const hidden = unexplained && !waiting;
    // Another writer's later record of this very reading says the document holds more than this text (an edit
    // it saw where reads cannot see, or only as plain text), though this machine could not tell (its time for
    // the reading unknown, model seed 50013: a colleague's code edit in the minute of a conflict's read). Only
    // then: with its time known, this machine's listing shows any later edit itself (hidden), and such a
    // record of the same minute is often that writer's own blindness, not news: it read our write before our
    // record was published, took it as plain text, and trusting that would hold every later edit of ours
    // (FLATTEN) for good (two workstations syncing at once, two-writers.test).
    const learnt = current && newer && !published.exact && (record.remoteModifiedTime ?? '') === '' ? doubtOfVersion(published) : 'none';
    const doubt = hidden ? 'content' : worse(doubtOf(record), learnt);
    return { theirs: base, merged: unmerged(local), doubt, hidden, hiddenInVersion: learnt === 'content' && published?.hidden === true, ...(waiting ? { waiting } : {}) };
  }
  const alignment = record.alignment as Alignment;
  const mergeInto = (body: string, seeReverts: boolean) => merge3({ base, remoteBase: record.remoteBlocks, remote, local: body, alignment, ...(seeReverts && priorBase !== undefined ? { priorBase } : {}) });
  const repaired = mergeInto(local, true);
  // Our last write undone, after a read-back found it standing (its minute over, its time known), with no writer's
  // record to say why: a kbsync writer's overwrite from a copy read before our write, landed late (its queue, its
  // retries), whose record is on its way, or a colleague's undo. Waited for while that record may come (convergence
  // soak 739: taken for an edit, a stale overwrite's reading was pulled, and three edits were gone everywhere); with
  // the record, that writer's exact version is merged and the revert repaired (above). Past that, the colleague's undo
  // is pulled. With a file edit to publish, nothing waits: the revert is repaired, and said, as in the write's own minute.
  const revertAfterReadBack = priorBase !== undefined && record.recheck === false && repaired.restored.length > 0;
  const merged = revertAfterReadBack && facts.recordMayCome !== true ? mergeInto(local, false) : repaired;
  // What the knowledge base says now, in the file's source: every remote change taken, a revert of our write too.
  const theirs = mergeInto(base, false).body;
  // An empty document holds nothing an overwrite could flatten (a document made by a run killed before its first
  // write); a colleague's edit adds its own doubt to what the record was in (merge.webEdits).
  const doubt = remote.length === 0 ? 'none' : worse(doubtOf(record), webEditDoubt(facts.webEdits, { remoteBase: record.remoteBlocks, remote, theirs }));
  // A block reads cannot show, new since the record (code, an image), would come in as a placeholder. Read a moment
  // after the document's time moved, it is most often another kbsync machine's write whose record, with the block's
  // source, is on its way: nothing is decided or recorded, and the next run takes that version (soak seed 502: the
  // placeholder, written into the file, was edited around and ended in a conflict). A colleague's block comes in
  // once the two minutes of recordMayCome are over.
  const waiting = facts.recordMayCome === true && !localChanged && record.hiddenEdit == null && (placeholdersBeyond(theirs, base) || revertAfterReadBack);
  return { theirs, merged: { ...merged, conflictCopyBody: merged.conflictCopyBody }, doubt, hidden: false, plain: true, ...(waiting ? { waiting } : {}) };
}

/**
 * The version the new one is made from (DocumentBody.builtOn): what the reading started from, another writer's
 * version taken in or else this record's. A write says so only where the document read exactly as that version (a
 * write decided on a plain reading of a change made it from that change too, which no record names).
 */
function builtOn(facts: BodyFacts, reading: Reading, remoteChanged: boolean, writes: boolean): { readonly builtOn?: string } {
  const other = reading.theirsHead !== undefined && facts.published !== undefined;
  const from = other ? contentHash(facts.published.text) : facts.record.localHash;
  const exactly = other ? standFor(facts.remote, facts.published.remoteBlocksHash, facts.published.text) : !remoteChanged && !reading.hidden;
  return from !== '' && (exactly || !writes) ? { builtOn: from } : {};
}

/**
 * The reading merged with another branch of the version this record was made from (BodyFacts.fork). The service has
 * no conditional write: a write decided on that version replaces whatever landed after it unseen, and another
 * machine may have taken that in already (a colleague's save, pulled). Against this record's base the branch the
 * write replaced looks removed by the later version, or the write's own change like one undone (model seed 6011: a
 * colleague's save, pulled by one machine and overwritten by the other's stale write, was dropped on every machine).
 * Against the version both were made from, each branch's change is its own: the file, the document as read and
 * the other branch merge in source, keeping every side's words. Without that version's text, the file stays as it
 * is and the other branch is kept beside it as a conflict: never dropped.
 */
function withBranch(reading: Reading, fork: BodyFacts['fork'], local: string): Reading {
  if (fork === undefined) return reading;
  const branch = splitText(fork.branch.text).body;
  if (fork.base === undefined) {
    // Nothing is merged that cannot be told apart: the file stays as it is, the other branch goes beside it, and the
    // document keeps what it holds until a person settles it (kbsync resolve).
    const kept: Conflict = { baseText: '', localText: local, remoteText: branch, position: { line: 1, offset: 0 } };
    return { ...reading, merged: { ...unmerged(local), conflicts: [kept], conflictCopyBody: branch }, against: kept.baseText };
  }
  const base = splitText(fork.base).body;
  const ours = mergeSources({ base, local, theirs: reading.theirs });
  const both = mergeSources({ base, local: ours.body, theirs: branch });
  // The same body as the merge against this record (two writes of kbsync's, the later one's repaired as a lost
  // update): that merge, with the lines its notices name.
  if (both.body === reading.merged.body && both.conflicts.length + ours.conflicts.length === reading.merged.conflicts.length) return reading;
  // The copy carries the other side of every clash: the document's of the first merge's, the branch's of the second's.
  // Made from the file's side of the first (ours.body), it left the document's words out (in neither file nor copy,
  // settling the conflict published over them).
  const copy = ours.conflictCopyBody === undefined ? both : mergeSources({ base, local: ours.conflictCopyBody, theirs: branch });
  // The document holding the other branch (heldBranch), the second merge finds the first one's clash again: one clash.
  const conflicts = [...ours.conflicts, ...both.conflicts.filter((clash) => !ours.conflicts.some((found) => sameClash(found, clash)))];
  const conflictCopyBody = conflicts.length === 0 ? undefined : (copy.conflictCopyBody ?? copy.body);
  return { ...reading, merged: { body: both.body, conflicts, conflictCopyBody, simplified: [], fromReading: [], restored: [] }, against: base };
}

/** Two clashes of the same lines between the same texts. */
const sameClash = (one: Conflict, other: Conflict): boolean =>
  one.position.line === other.position.line && one.baseText === other.baseText && one.localText === other.localText && one.remoteText === other.remoteText;

/**
 * The other branch (BodyFacts.fork), when the document reads as it: its write landed after the read this record's
 * version was made from, so it is the version the document holds, and readingOf takes it as another writer's, whatever
 * order the two were agreed or published in (model seed 8506: a machine's record of the page as it read it a moment
 * before the other's write, published after that write's, stood as the latest; its plain reading of the write then
 * clashed with the write itself, and the conflict left each machine's change on that machine alone).
 */
function heldBranch(facts: Pick<BodyFacts, 'fork' | 'remote'>): PublishedVersion | undefined {
  const branch = facts.fork?.branch;
  return branch !== undefined && standFor(facts.remote, branch.remoteBlocksHash, branch.text) ? branch : undefined;
}

/**
 * A record of a page as its create made it (empty), read plainly before any record of it came (`hc`): a version the
 * document stands for now is a body written over it, later whatever order the two were agreed in (convergence soak
 * 728: the reading, agreed seconds after the writer's record of its first body, stood over it, and that body was
 * taken in as the plain reading, placeholders for its code and tables).
 */
const readAsMade = (record: Pick<BodyFacts['record'], 'baseMarkdown' | 'headCarried'>): boolean => record.baseMarkdown === '' && record.headCarried === true;

/** Whether a version is the other branch of a fork (the same text, agreed on the same blocks). */
const isBranch = (version: PublishedVersion, fork: BodyFacts['fork']): boolean =>
  fork !== undefined && version.text === fork.branch.text && version.remoteBlocksHash === fork.branch.remoteBlocksHash;

/**
 * The texts front matter and line endings merge from with another branch (BodyFacts.fork): the version both branches
 * were made from and the other branch, as the body does (withBranch). Only the shared state carries them: against this
 * record's base, the branch would undo this machine's change of them, and this machine would never take the other's
 * (model seed 8506: a front matter added on one machine never reached the other). Without that version's text: none.
 */
const branchSides = (fork: BodyFacts['fork']): { readonly base: string; readonly branch: string } | undefined =>
  fork?.base === undefined ? undefined : { base: fork.base, branch: fork.branch.text };

/** What another writer's version is in doubt of (its record's `l` and `f`). */
const doubtOfVersion = (version: PublishedVersion): Doubt => (version.exact ? 'none' : version.formattingOnly === true ? 'formatting' : 'content');

/**
 * What the merge takes as the parts only the shared state carries (front matter, line endings) were agreed on: the
 * record's base, unless another writer's version is taken in and the record's own text never reached the state
 * (BodyFacts.unpublished). Then it is what the others last had of this file from here (nothing known: no front
 * matter): a change since is a local edit, kept and published over that version, as a body edit is (the document
 * carries the body to them). Soak, issue 44: a front-matter edit whose append failed was overwritten when this
 * machine followed the other's move of the file, and lost everywhere.
 */
function sharedBase(facts: BodyFacts, reading: Reading): { readonly head: string; readonly text: string } {
  const { baseMarkdown } = facts.record;
  if (reading.theirsHead === undefined || facts.unpublished === undefined) return { head: splitText(baseMarkdown).head, text: baseMarkdown };
  const last = facts.unpublished.lastPublished;
  return last === undefined ? { head: '', text: baseMarkdown } : { head: splitText(last).head, text: last };
}

/**
 * Whether a file holds, in what only the shared state carries (front matter, line endings), a change since what
 * this machine last published of it (BodyFacts.unpublished; nothing known: no front matter): an edit the other
 * writers never saw, which their delete of the document does not decide on (an edit beats a delete).
 */
export function editedUnpublished(fileText: string, unpublished: BodyFacts['unpublished']): boolean {
  if (unpublished === undefined) return false;
  const last = unpublished.lastPublished;
  if (last === undefined) return splitText(fileText).head !== '';
  return splitText(fileText).head !== splitText(last).head || lineEndingsOf(fileText) !== lineEndingsOf(last);
}

/**
 * What the new base's front matter replaced by this machine's own change: the base's, when this agreement
 * publishes a front matter the file changed; the record's, while the front matter stays; none once another
 * writer's is taken (a new line of changes, which this machine did not make).
 */
function replacedHeadAfter(record: BodyFacts['record'], baseHead: string, localHead: string, recordedHead: string): string | null {
  if (recordedHead === baseHead) return record.replacedHead ?? null;
  return recordedHead === localHead ? baseHead : null;
}

/** The front matter after the merge: the side that changed it wins; both changing it differently is a conflict. */
function mergedHead(base: string, local: string, theirs: string | undefined): { readonly text: string; readonly conflict?: Conflict } {
  if (theirs === undefined || theirs === local || theirs === base) return { text: local };
  if (local === base) return { text: theirs };
  return { text: local, conflict: { baseText: base, localText: local, remoteText: theirs, position: { line: 1, offset: 0 } } };
}

/** The line a block of a body starts on (1-based). */
const lineOfBlock = (body: string, index: number): number => {
  const segment = segmentBody(body).segments[index];
  return segment ? body.slice(0, segment.start).split('\n').length : -1;
};

/**
 * The decision for a synced document whose body has been read: push, pull, merge, conflict, hold or
 * nothing. Pure: the run carries it out, and `diff`, `sync --dry-run` and `status` print it.
 *
 * Every byte saved is published or held (a change inside code, a table, a link's address or formatting is a
 * change: what is compared is the Markdown, not what reads show). Nothing the document holds that kbsync
 * cannot read back is overwritten: a whole-document write goes out only when the document is known to hold
 * exactly what kbsync thinks it does; otherwise only an append, or a hold that says why (FLATTEN, HIDDEN_EDIT).
 */
export function decideBody(given: BodyFacts): BodyDecision {
  // Our own move's new document, still empty: the moved page is the file's first push to send, not a deletion of it.
  // Decided before the wait for a maker's body (bodyComing): this machine is that maker, and a follower's record over
  // its ids does not make it wait for itself.
  if (given.remote.length === 0 && madeUnfilled(given.record) && splitText(given.record.baseMarkdown).body.trim() !== '') return firstPushOf(given);
  if (given.bodyComing === true && given.remote.length === 0) return decideUnfilled(given);
  const branch = heldBranch(given);
  const input = branch ? { ...given, published: branch } : given;
  // A hidden edit the writer's own record explains was that writer's write: nobody's edit stands (explainsHidden).
  const facts = explainsHidden(input.published, input.record) ? { ...input, record: { ...input.record, hiddenEdit: null } } : input;
  const { mode, record, fileText, remote } = facts;
  const local = splitText(fileText);
  const base = splitText(record.baseMarkdown);
  const remoteChanged = blocksHash(remote) !== record.remoteBlocksHash;
  const fileChanged = contentHash(fileText) !== record.localHash;
  const reading = withBranch(readingOf(facts, base.body, local.body, remoteChanged, fileChanged), facts.fork, local.body);
  const { theirs, merged } = reading;
  // Front matter never reaches the document: it travels in the kept sources, and merges as one block, against what
  // the others know of it. The service cannot change line endings: only another writer's source can bring new ones.
  const shared = sharedBase(facts, reading);
  const theirsText = reading.theirsHead !== undefined && facts.published ? facts.published.text : record.baseMarkdown;
  // Another writer's version that still has the front matter this machine's own change replaced was made without
  // seeing that change (it edited the body meanwhile): its front matter is the older one, no change of theirs
  // (soak seed 502: taken for one, it undid this machine's front matter on every machine). Nor is the front matter
  // of a version that kept its own across a plain reading (`hc`) a change of theirs, where this record knows its
  // own from its writer: only its body is news (model seed 4011, a later write of code). But only against a record of
  // the very blocks that reading read (carriedOver): the write it could not see the front matter of. Against a record
  // of other blocks (one that version's writer had gone past: the page as created, its own earlier record), the
  // front matter kept is that writer's own, and its change is news (model seed 718: a machine added front matter,
  // then took a colleague's edit in plainly; the other, still at the page as created, kept none, and the files
  // differed for good). A reading of this machine's write and then of a later change, before this record came, is
  // the replaced front matter's case above where this machine made the change; one it only took in, it cannot tell.
  const staleHead = (record.replacedHead != null && reading.theirsHead === record.replacedHead) || carriedOver(facts.published, record);
  const theirsHead = reading.theirsHead !== undefined && staleHead ? base.head : reading.theirsHead;
  const sides = branchSides(facts.fork);
  const head = sides ? mergedHead(splitText(sides.base).head, local.head, splitText(sides.branch).head) : mergedHead(shared.head, local.head, theirsHead);
  const endings = sides ? mergedLineEndings(sides.base, fileText, sides.branch) : mergedLineEndings(shared.text, fileText, theirsText);
  // What the record's own base would have given up to that version: a local edit, though the file is as recorded.
  // Not where another branch merged against the version both were made from (what the base would give is no measure there).
  const keptUnpublished = sides === undefined && (head.text !== mergedHead(base.head, local.head, theirsHead).text || endings !== mergedLineEndings(record.baseMarkdown, fileText, theirsText));
  const localChanged = fileChanged || keptUnpublished;
  const hiddenEditSeen = reading.hidden && record.hiddenEdit == null;
  // A hidden edit stands until a whole write of a known version replaces it (another machine's, seed 90009: kept,
  // it held every later edit of this file and was published as news it no longer was).
  const hiddenEdit = reading.overwroteHidden ? null : (record.hiddenEdit ?? (reading.hidden ? (facts.listedTime ?? null) : null));
  const known = reading.doubt === 'none';
  // What the document will hold beyond our reading if nothing overwrites it (a hidden edit is kept apart: it has its own hold).
  // The record's doubt stays while the document shows what it did, unless another writer's version of it stands for
  // that doubt (readingOf): this machine read that writer's write plainly before its record came, and the record
  // says what those very blocks hold (soak seed 502: kept, the plain reading's doubt became a doubt of content, and
  // the next edit of a prose page was held FLATTEN for good).
  const lossy = (!known && hiddenEdit === null) || (!remoteChanged && record.lossyBase === true && reading.theirsHead === undefined);
  const formattingOnly = lossy && reading.doubt === 'formatting';
  // Another writer's version stands for the record's doubt (readingOf); else the record's hidden edit stays with it.
  const hiddenBase = lossy && !formattingOnly && (reading.hiddenInVersion === true || (reading.theirsHead === undefined && record.lossyBase === true && record.hiddenBase === true));
  const hiddenVersionSeen = reading.hiddenInVersion === true && lossy && !(record.lossyBase === true && record.hiddenBase === true) && !hiddenEditSeen;
  // Carried out with every decision: the time the run records for what it read (apply-body.ts readingTime).
  const listedVersion = reading.listedVersion === true ? { listedVersion: true as const } : {};
  const early = facts.followed === true && facts.listedTime !== undefined && ((record.remoteModifiedTime ?? '') === '' || laterThan(record.remoteModifiedTime, facts.listedTime));
  const listedEarly = early ? { listedEarly: true as const } : {};
  const unchanged = { ...listedVersion, ...listedEarly, localChanged, remoteChanged, fileText, nextFile: undefined, conflictCopy: undefined, conflictBase: undefined, conflicts: [], send: undefined, theirs, baseText: record.baseMarkdown, simplified: [], unseenFormatting: [], restored: [], hiddenEdit, hiddenEditSeen, lossy, formattingOnly, hiddenBase, hiddenVersionSeen: false, keptUnpublished: false, headCarried: record.headCarried === true, readPlainly: record.readPlainly === true, replacedHead: record.replacedHead ?? null };
  const hold = (reason: Held): BodyDecision => ({ ...unchanged, kind: 'held', held: reason });
  // A file's edit waits with it, and says so (JUST_EDITED): left unsaid, the edit was unpublished in silence. A pull-only
  // run sends nothing either way: its wait is the plain one.
  if (reading.waiting === true) return fileChanged && mode !== 'pull' ? { ...hold(held('JUST_EDITED')), waiting: true } : { ...unchanged, kind: 'none', waiting: true };

  if (mode !== 'pull' && !facts.force && emptied(fileText, record.baseMarkdown)) return hold(held('EMPTIED'));
  const sending = mode === 'push' ? local.body : merged.body;
  const outgoing = pushMarkdown(sending, facts.path, facts.urlOf);
  // Compared as Markdown before links become URLs (the same rewrite on both sides; a changed URL is `mustResend`'s).
  const differs = toPushMarkdown(sending) !== toPushMarkdown(theirs);
  // Another writer's version known from its record (a change inside code reads the same) is a remote edit too; so is
  // another branch merged in (withBranch): a push of the file alone would overwrite it again, and end the fork.
  const remoteEdited = remoteChanged || theirs !== base.body || reading.against !== undefined;
  // Unless the file already has that edit: the document is known exactly, and merging it into the file changes
  // nothing (a CI job's own write, announced before a kill lost its record: the next commit builds on it).
  const included = known && merged.conflicts.length === 0 && merged.body === local.body;
  if (mode === 'push' && remoteEdited && differs && !included && !facts.force) return hold(held('REMOTE_EDITED'));

  const conflicts = head.conflict ? [head.conflict, ...merged.conflicts] : merged.conflicts;
  const written = mode === 'push' ? fileText : withLineEndings(joinText(head.text, merged.body), endings);
  const nextFile = written !== fileText ? written : undefined;
  const conflictCopy = mode !== 'push' && conflicts.length > 0 ? joinText(theirsHead ?? local.head, merged.conflictCopyBody ?? theirs) : undefined;
  // What the clash was found against: the front matter's base and the body's, as each merge had it.
  const conflictBase = conflictCopy === undefined ? undefined : joinText(sides ? splitText(sides.base).head : shared.head, reading.against ?? base.body);

  let send: Send | undefined;
  let blocker: 'PLACEHOLDERS' | 'HIDDEN_EDIT' | 'FLATTEN' | undefined;
  // The service reads links back as plain text: a body sent before its link targets had documents agrees, and is stale.
  // Images read back as `unknown` whatever their URL: a new image (same Markdown, other bytes) shows only here.
  const images = facts.urlOf?.sentImages(facts.path);
  const imagesChanged = images !== undefined && imagesDiffer(images, decodeSentImages(record.imagesSent));
  const resend = (facts.urlOf?.mustResend(facts.path) ?? false) || imagesChanged;
  // A clash is left for a person: the knowledge base keeps its version until the conflict is settled
  // (kbsync resolve), rather than the file's side winning by the clock.
  if (mode !== 'pull' && conflictCopy === undefined && (resend || differs)) {
    // The blocks read now read as the record's (no remote change), and carry the ids the append must name: the
    // record's may be another document's (one this record was rebound to follow replaced it; model seed 1023).
    const append = remoteChanged || imagesChanged ? undefined : appendOnlyChange(base.body, splitText(written).body, remote, record.alignment as Alignment);
    // An overwrite replaces the whole document; an append keeps everything already there. So what an
    // overwrite would destroy holds it: content the service never showed us (placeholders, an edit made
    // inside a code block or a table), or what the document holds beyond our plain reading (--force overrides).
    // Placeholders are looked for in the body, whatever the push makes of it: a note vault's push once left them
    // out with its comments, and the block each stood for went all the same (model seed 8003: a forced run deleted a
    // colleague's code block, and the machines' files then differed for good).
    if (!append) blocker = hasPlaceholders(sending) ? 'PLACEHOLDERS' : facts.force ? undefined : hiddenEdit !== null ? 'HIDDEN_EDIT' : doubtHolds(reading.doubt, facts.webEdits) ? 'FLATTEN' : undefined;
    if (!blocker) send = { markdown: outgoing, append, ...(images && images.length > 0 ? { images } : {}) };
  }

  // Local edits left unpushed (a pull-only run, a held push) stay local changes: the new base is the old
  // one with only the remote's edits, so the next run still sees them.
  // A conflict's base is always the knowledge base's side: the file differs from it there (even when the
  // clash is a racing writer's revert of a file we had not touched), so settling it publishes the file.
  // So are a lost update's lines kept in the file (merged.restored): until they are published, the file differs there.
  const unsent = localChanged || merged.restored.length > 0;
  const baseText = conflictCopy !== undefined || ((mode === 'pull' || blocker !== undefined) && unsent) ? joinText(base.head, theirs) : written;
  // Lines count from the top of the file: the front matter comes first.
  const headLines = local.head === '' ? 0 : local.head.split('\n').length - 1;
  const simplified = mode === 'push' || nextFile === undefined ? [] : merged.simplified.map((line) => line + headLines);
  // Words of the web editor taken into the file of a document now known (merge.webEdits): their formatting there
  // cannot be seen (a line already said simplified is not said twice). A lossy one says its hold when it holds.
  const unseenFormatting = mode === 'push' || nextFile === undefined || reading.doubt !== 'formatting' || doubtHolds(reading.doubt, facts.webEdits) ? [] : merged.fromReading.map((line) => line + headLines).filter((line) => !simplified.includes(line));
  const restored = mode === 'push' ? [] : merged.restored.map((line) => line + headLines);
  // A whole-document write replaces what the hidden edit or the lossy reading stood for: both end with it.
  const overwrote = send !== undefined && send.append === undefined;
  // The front matter kept unchanged across a plain reading is not known from the writer of what was read (nor
  // is one taken from a version that kept its own so); a front matter this machine changed is its own.
  const carriedFrom = reading.theirsHead !== undefined ? (facts.published?.headCarried === true ? reading.theirsHead : undefined) : reading.plain === true || record.headCarried === true ? base.head : undefined;
  const decided = {
    ...listedVersion,
    ...listedEarly,
    localChanged,
    remoteChanged,
    fileText: written,
    nextFile,
    conflictCopy,
    conflictBase,
    conflicts: conflictCopy ? conflicts : [],
    send,
    theirs,
    baseText,
    simplified,
    unseenFormatting,
    restored,
    hiddenEdit: overwrote ? null : hiddenEdit,
    hiddenEditSeen,
    lossy: overwrote ? false : lossy,
    formattingOnly: overwrote ? false : formattingOnly,
    hiddenBase: overwrote ? false : hiddenBase,
    // Said only where the file takes that version: a machine that already holds the text has nothing new to learn.
    hiddenVersionSeen: overwrote || nextFile === undefined ? false : hiddenVersionSeen,
    keptUnpublished,
    headCarried: carriedFrom !== undefined && splitText(baseText).head === carriedFrom,
    // A new base taken from the plain reading, nothing written: this machine's layout of another writer's change.
    readPlainly: send === undefined && (baseText === record.baseMarkdown ? record.readPlainly === true : reading.plain === true),
    replacedHead: replacedHeadAfter(record, base.head, local.head, splitText(baseText).head),
    ...builtOn(facts, reading, remoteChanged, send !== undefined),
  };
  if (blocker) return { ...decided, kind: 'held', held: held(blocker) };
  return { ...decided, kind: kindOf(decided) };
}

function kindOf(d: Pick<BodyDecision, 'conflictCopy' | 'remoteChanged' | 'localChanged' | 'send' | 'nextFile'>): BodyDecisionKind {
  if (d.conflictCopy) return 'conflict';
  // Another writer's version can differ where reads show nothing (a link's address): the file takes it all the same.
  const incoming = d.remoteChanged || d.nextFile !== undefined;
  if (incoming && (d.localChanged || d.send)) return 'merge';
  if (d.send) return 'push';
  if (incoming) return 'pull';
  return 'none';
}

/**
 * A document another writer made in place of this record's own and has yet to fill (BodyFacts.bodyComing): this
 * machine followed it before its first body, and reads it empty. Taken for a remote edit, the emptiness was pulled
 * over the file, and the page and the edit made here were gone from it, the next push to send that (soak seed 714).
 * While that writer may still be sending its body (listed in the last two minutes, or not listed at all), nothing
 * is decided or recorded (BodyDecision.waiting): the next run merges the file's edits into that body. The wait is
 * said (BODY_COMING): the file holds a page its document does not, and a run that kept quiet about it hid that the
 * page is on this machine alone meanwhile, as it is for good when that writer's own first push is held (a forced
 * move of a file with placeholders: model seed 6018). Past that, its writer is gone (killed, never back, or held):
 * the page is this machine's to fill, with its file, as a first push is (a pull-only run writes nothing, and keeps
 * waiting).
 */
function decideUnfilled(facts: BodyFacts): BodyDecision {
  const first = firstPushOf(facts);
  const mayComeYet = facts.listedTime === undefined || facts.listedLately === true;
  if (!mayComeYet && facts.mode !== 'pull') return first;
  return { ...first, kind: 'held', held: held('BODY_COMING'), send: undefined, nextFile: undefined, waiting: true };
}

/** The file's first push into an empty document, whatever the record says it agreed on. */
const firstPushOf = (facts: BodyFacts): BodyDecision => decideFirstPush({ mode: facts.mode, force: facts.force, path: facts.path, fileText: facts.fileText, urlOf: facts.urlOf });

/**
 * A record made with its document and never filled (act/create.ts recordUnpushed): no blocks, no time. Its base
 * may be the page a move made the document to carry, not anything the document holds: empty, it waits for its
 * first push; filled by another writer meanwhile (a follower, past the minutes that push may take), that writer's
 * text merges against the page, which both made theirs from (issue 44: merged against nothing, every block came
 * twice).
 */
export const madeUnfilled = (record: Pick<BodyFacts['record'], 'remoteBlocks' | 'remoteModifiedTime'>): boolean => record.remoteBlocks.length === 0 && record.remoteModifiedTime === '';

/** The first push of a file into a document made a moment ago (empty), decided before the document is made. */
export function decideFirstPush(facts: Omit<BodyFacts, 'record' | 'remote' | 'webEdits'>, remote: readonly Block[] = []): BodyDecision {
  // No web edit stands between an empty record and the document it is decided against: the policy never applies.
  return decideBody({ ...facts, webEdits: 'strict', remote, record: { baseMarkdown: '', remoteBlocks: remote, alignment: undefined, localHash: '', remoteBlocksHash: blocksHash(remote) } });
}
