import { appendOnlyChange, blocksHash, hasPlaceholders, merge3, type AppendChange, type Alignment, type Conflict } from '../../markdown/index.js';
import { contentHash } from '../../markdown/hash.js';
import type { Block } from '../../model/blocks.js';
import type { UrlOfPath } from '../links.js';
import { decodeSentImages, imagesDiffer } from '../../images/sent.js';
import type { SentImage } from '../../images/types.js';
import { joinText, splitText } from '../document-text.js';
import { held, type Held } from './held.js';
import { agrees, pushMarkdown } from './push-markdown.js';
import type { SyncMode } from './types.js';

/** What one synced document's file and body are now, beside what they were when both sides last agreed. */
export type BodyFacts = {
  readonly mode: SyncMode;
  readonly force: boolean;
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
    readonly remoteModifiedTime?: string;
    readonly recheck?: boolean;
    /** The images the document was last sent with (the ledger's JSON text). */
    readonly imagesSent?: string | null;
  };
  /** The document's modifiedTime in this run's listing, when it was listed. */
  readonly listedTime?: string;
  /** The file now. */
  readonly fileText: string;
  /** The document's blocks now. */
  readonly remote: readonly Block[];
  /** With link rewriting: the URL of the synced document at a path. */
  readonly urlOf: UrlOfPath | undefined;
};

export type BodyDecisionKind = 'none' | 'push' | 'pull' | 'merge' | 'conflict' | 'held';

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
  readonly conflicts: readonly Conflict[];
  /** Set when the document is written: the append, or else the Markdown of the overwrite. */
  readonly send: Send | undefined;
  /** The remote's version in the file's own Markdown source (what the document says now, as the file would say it). */
  readonly theirs: string;
  /** The text recorded as what both sides agreed on. */
  readonly baseText: string;
  /** Lines of the written file where a remote text edit replaced formatting with plain text (FORMATTING_SIMPLIFIED). */
  readonly simplified: readonly number[];
  /** Set while someone's edit of what the service does not show stands: the listed time it was seen at. */
  readonly hiddenEdit: string | null;
  /** Set when this run is the first to see that hidden edit (said once). */
  readonly hiddenEditSeen: boolean;
};

/** Blocks whose content a read does not give (code and images read as `unknown`, a table as its size only). */
const hidesContent = (blocks: readonly Block[]): boolean => blocks.some((block) => block.type === 'unknown' || block.type === 'table');

/**
 * Someone edited what the service does not show: the document's time moved past the one we agreed on
 * (a time of our own write, not a re-check of it) while every block it shows stayed the same.
 */
function hiddenEditNow(facts: BodyFacts, remoteChanged: boolean): boolean {
  const { record, listedTime } = facts;
  if (remoteChanged || listedTime === undefined || !record.remoteModifiedTime || record.recheck) return false;
  return listedTime !== record.remoteModifiedTime && hidesContent(facts.remote);
}

/** A file truncated to nothing (a save caught half-way, a failed copy) must not silently wipe its document. */
const emptied = (text: string, base: string): boolean => text.trim() === '' && base.trim() !== '';

/**
 * The decision for a synced document whose body has been read: push, pull, merge, conflict, hold or
 * nothing. Pure: the run carries it out, and `diff`, `sync --dry-run` and `status` print it.
 */
export function decideBody(facts: BodyFacts): BodyDecision {
  const { mode, record, fileText, remote } = facts;
  const local = splitText(fileText);
  const base = splitText(record.baseMarkdown);
  const alignment = record.alignment as Alignment;
  const remoteChanged = blocksHash(remote) !== record.remoteBlocksHash;
  const localChanged = contentHash(fileText) !== record.localHash;
  const mergeInto = (localBody: string, { seeReverts = true } = {}) =>
    merge3({ base: base.body, remoteBase: record.remoteBlocks, remote, local: localBody, alignment, ...(seeReverts && record.publishedOver != null ? { priorBase: record.publishedOver } : {}) });
  const merged = remoteChanged ? mergeInto(local.body) : { body: local.body, conflicts: [] as readonly Conflict[], conflictCopyBody: undefined, simplified: [] as readonly number[] };
  // What the knowledge base says now, in the file's source: every remote change taken, a revert of our write too.
  const theirs = remoteChanged ? mergeInto(base.body, { seeReverts: false }).body : base.body;
  const hiddenEditSeen = hiddenEditNow(facts, remoteChanged);
  const hiddenEdit = record.hiddenEdit ?? (hiddenEditSeen ? (facts.listedTime ?? null) : null);
  const unchanged = { localChanged, remoteChanged, fileText, nextFile: undefined, conflictCopy: undefined, conflicts: [], send: undefined, theirs, baseText: record.baseMarkdown, simplified: [], hiddenEdit, hiddenEditSeen };
  const hold = (reason: Held): BodyDecision => ({ ...unchanged, kind: 'held', held: reason });

  if (mode !== 'pull' && !facts.force && emptied(fileText, record.baseMarkdown)) return hold(held('EMPTIED'));
  const outgoing = pushMarkdown(mode === 'push' ? local.body : merged.body, facts.path, facts.urlOf);
  if (mode === 'push' && remoteChanged && !agrees(outgoing, remote) && !facts.force) return hold(held('REMOTE_EDITED'));

  const written = mode === 'push' ? fileText : joinText(local.head, merged.body);
  const nextFile = written !== fileText ? written : undefined;
  const conflictCopy = mode !== 'push' && merged.conflicts.length > 0 ? joinText(local.head, merged.conflictCopyBody ?? theirs) : undefined;

  let send: Send | undefined;
  let blocker: 'PLACEHOLDERS' | 'HIDDEN_EDIT' | 'FLATTEN' | undefined;
  // The service reads links back as plain text: a body sent before its link targets had documents agrees, and is stale.
  // Images read back as `unknown` whatever their URL: a new image (same Markdown, other bytes) shows only here.
  const images = facts.urlOf?.sentImages(facts.path);
  const imagesChanged = images !== undefined && imagesDiffer(images, decodeSentImages(record.imagesSent));
  const resend = (facts.urlOf?.mustResend(facts.path) ?? false) || imagesChanged;
  // A clash is left for a person: the knowledge base keeps its version until the conflict is settled
  // (kbsync resolve), rather than the file's side winning by the clock.
  if (mode !== 'pull' && conflictCopy === undefined && (resend || !agrees(outgoing, remote))) {
    const append = remoteChanged || imagesChanged ? undefined : appendOnlyChange(base.body, splitText(written).body, record.remoteBlocks, alignment);
    // An overwrite replaces the whole document; an append keeps everything already there. So what an
    // overwrite would destroy holds it: content the service never showed us (placeholders, an edit made
    // inside a code block or a table), or formatting our plain-text base never had (--force overrides).
    if (!append) blocker = hasPlaceholders(outgoing) ? 'PLACEHOLDERS' : facts.force ? undefined : hiddenEdit !== null ? 'HIDDEN_EDIT' : record.lossyBase ? 'FLATTEN' : undefined;
    if (!blocker) send = { markdown: outgoing, append, ...(images && images.length > 0 ? { images } : {}) };
  }

  // Local edits left unpushed (a pull-only run, a held push) stay local changes: the new base is the old
  // one with only the remote's edits, so the next run still sees them.
  // A conflict's base is always the knowledge base's side: the file differs from it there (even when the
  // clash is a racing writer's revert of a file we had not touched), so settling it publishes the file.
  const baseText = conflictCopy !== undefined || ((mode === 'pull' || blocker !== undefined) && localChanged) ? joinText(base.head, theirs) : written;
  // Lines count from the top of the file: the front matter comes first.
  const headLines = local.head === '' ? 0 : local.head.split('\n').length - 1;
  const simplified = mode === 'push' || nextFile === undefined ? [] : merged.simplified.map((line) => line + headLines);
  // A whole-document write replaces what the hidden edit or the flat base stood for: both end with it.
  const overwrote = send !== undefined && send.append === undefined;
  const decided = { localChanged, remoteChanged, fileText: written, nextFile, conflictCopy, conflicts: conflictCopy ? merged.conflicts : [], send, theirs, baseText, simplified, hiddenEdit: overwrote ? null : hiddenEdit, hiddenEditSeen };
  if (blocker) return { ...decided, kind: 'held', held: held(blocker) };
  return { ...decided, kind: kindOf(decided) };
}

function kindOf(d: Pick<BodyDecision, 'conflictCopy' | 'remoteChanged' | 'localChanged' | 'send' | 'nextFile'>): BodyDecisionKind {
  if (d.conflictCopy) return 'conflict';
  if (d.remoteChanged && (d.localChanged || d.send)) return 'merge';
  if (d.send) return 'push';
  if (d.remoteChanged) return 'pull';
  return 'none';
}

/** The first push of a file into a document made a moment ago (empty), decided before the document is made. */
export function decideFirstPush(facts: Omit<BodyFacts, 'record' | 'remote'>, remote: readonly Block[] = []): BodyDecision {
  return decideBody({ ...facts, remote, record: { baseMarkdown: '', remoteBlocks: remote, alignment: undefined, localHash: '', remoteBlocksHash: blocksHash(remote) } });
}
