import { parseBlock } from '../../src/api/blocks.js';
import type { RawBlock } from '../../src/api/schemas.js';
import type { DumpedNode } from '../../src/emulator/index.js';
import type { DocumentSummary } from '../../src/ledger/index.js';
import { hashText } from '../../src/local/fingerprint.js';
import { blocksHash, blocksToMarkdown, contentHash, PLACEHOLDER_PREFIX } from '../../src/markdown/index.js';
import type { SyncReport } from '../../src/sync/views/report.js';
import { isConflictCopy } from '../helpers/reliability.js';
import type { Snippet } from './mutate.js';
import { tokensIn } from './tokens.js';

/**
 * What the model knows that kbsync must not break, and the checks of the four invariants (README "What is
 * safe"), written from the outside: the files, the ledger's pairing of files with documents, what the
 * service stores (the Markdown a web editor would show, formatting included) and each run's report.
 */

export const lf = (text: string): string => text.replace(/\r\n?/g, '\n');

const FRONT_MATTER = /^---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/;
export const bodyOf = (text: string): string => text.slice(FRONT_MATTER.exec(text)?.[0].length ?? 0);

/**
 * What a vault's reader sees of a body: its comments gone, `%%…%%` (to the end of the note when none closes it)
 * and `<!--…-->` (README "Note vaults"). The model writes `%%` only as a comment, never in code; a comment an
 * edit landed inside (seed 2: an autolink typed into a comment block) hides that edit's words too.
 */
const readerSees = (body: string): string => body.replace(/%%[\s\S]*?(?:%%|$)|<!--[\s\S]*?-->/g, '');

const blocksOf = (doc: DumpedNode) => (doc.blocks ?? []).map((block, i) => parseBlock(block as unknown as RawBlock, i));

/** What a document's blocks hash to, as a record of a reading of it says (DocumentSummary.remoteBlocksHash). */
export const blocksHashOf = (doc: DumpedNode): string => blocksHash(blocksOf(doc));

/** The Markdown kbsync reads of a document: only what its blocks show (code, tables and formatting hidden). */
export function visibleReading(doc: DumpedNode): string {
  return blocksToMarkdown(blocksOf(doc));
}

/**
 * The windows README "What is safe" states: an edit that reads the same (inside code, a link's address) and
 * keeps the document's time (made in the minute of this machine's last reading of it): a colleague's in any
 * run (the service's times are to the minute), also in the minute of another kbsync's last reading (README:
 * "kbsync's last reading of the document"); another machine's, whose state record a push-only run does
 * not read for a document that shows no change, and a two-way run reads only once the minute of its own last
 * read of the state is over (seed 70075: all in one minute).
 */
function inSameMinuteWindow(check: SyncCheck, doc: DumpedNode, author: string): boolean {
  const sameReading = (row: DocumentSummary): boolean => row.docKey === doc.dentryUuid && row.remoteModifiedTime === doc.modifiedTime && row.remoteBlocksHash === blocksHashOf(doc);
  if (check.rowsBefore?.some(sameReading)) return true;
  // A colleague's save in the minute of another machine's last reading (its write's read-back, say): the
  // reading this machine's merge works from, which shows the same (seed 100106: a code line edited in the
  // minute of the other machine's push, which this machine then merged its own edits with).
  return author === 'colleague' && (check.peerRowsBefore ?? []).some(sameReading);
}

/**
 * The other window README "What is safe" states: an edit that reads the same, made before a rename or move
 * of its document in the web editor that this machine had not listed yet: the rename explains the document's
 * new time. The machine's row still names the old title or folder, and the blocks are the ones it recorded.
 */
function inRelocationWindow(check: SyncCheck, doc: DumpedNode): boolean {
  const row = check.rowsBefore?.find((r) => r.docKey === doc.dentryUuid);
  if (!row || row.remoteBlocksHash !== blocksHashOf(doc)) return false;
  return (row.listedTitle ?? row.remoteTitle) !== doc.title || row.parentTreeNodeId !== doc.parentId;
}

export type Tracked = Snippet & { readonly author: string };

/** Everything written in the run, and what each workstation's user did with it. */
export class Book {
  readonly snippets = new Map<string, Tracked>();

  /** `vault`: the team's folders are note vaults, whose comments are never sent (they travel in the shared state). */
  constructor(readonly vault = false) {}
  /** Snippets lost in the stated same-minute window (counted, not failed). */
  windowed = 0;
  /** A colleague's snippets saved between a run's read of their document and its write of it: the stated window (counted, not failed). */
  readWriteWindowed = 0;
  /** Snippets lost in the stated rename-or-move window (counted, not failed). */
  relocationWindowed = 0;
  /**
   * Snippets a colleague replaced where reads cannot see, together with an edit they can: kept in a file whose
   * record says the document holds more than it (counted, not failed).
   */
  unreadWindowed = 0;
  /**
   * Formatting a colleague gave words they wrote (or crossed), lost when a machine published the file those words
   * came into as plain text, after a run said so at their line (FORMATTING_UNSEEN, FORMATTING_SIMPLIFIED: README's
   * merge.webEdits "merge"): counted, not failed.
   */
  formattingWindowed = 0;
  /** Tokens on lines a run said it took in without their formatting (said once, by whichever machine took them in). */
  readonly #plainSaid = new Set<string>();
  /** Tokens a machine's user (or the colleague, as 'colleague') removed or rewrote by their own edit (deleting a file included): theirs to lose. */
  readonly #dropped = new Map<string, Set<string>>();

  add(snippets: readonly Snippet[], author: string): void {
    for (const snippet of snippets) this.snippets.set(snippet.token, { ...snippet, author });
  }

  /** After a user's edit of a file on `machine`: the snippets that were in it and are not, as written, any more. */
  noteUserEdit(machine: string, before: string, after: string): void {
    for (const token of tokensIn(before)) {
      const snippet = this.snippets.get(token);
      if (!after.includes(token) || (snippet && lf(before).includes(lf(snippet.text)) && !lf(after).includes(lf(snippet.text)))) this.#droppedBy(machine).add(token);
    }
  }

  /**
   * A run of `machine` said a document was edited where the service shows nothing (HIDDEN_EDIT): said once, it
   * stands for that document, wherever its file moves later (model seed 90004: said of guides/acorn.md, then
   * the colleague moved the document and the file followed to acorn.md).
   */
  noteHidden(machine: string, report: SyncReport | undefined, rows: readonly DocumentSummary[]): void {
    const docKeys = new Map(rows.map((row) => [row.path, row.docKey]));
    for (const r of report?.results ?? []) {
      if (r.ok && (r.detail ?? '').includes('HIDDEN_EDIT')) this.#hiddenSaid.add(`${machine}\0${docKeys.get(r.path) ?? r.path}`);
    }
  }

  /** After a run: the tokens on the lines its FORMATTING_UNSEEN and FORMATTING_SIMPLIFIED notices named. */
  notePlain(report: SyncReport | undefined, files: ReadonlyMap<string, string>): void {
    for (const r of report?.results ?? []) {
      if (!r.ok) continue;
      const text = files.get(r.path);
      const notices = (r.detail ?? '').split('; ').filter((notice) => /^FORMATTING_(UNSEEN|SIMPLIFIED)/.test(notice));
      if (text === undefined || notices.length === 0) continue;
      const lines = lf(text).split('\n');
      for (const notice of notices) {
        const named = /^FORMATTING_\w+: .*?\blines? ([\d, ]+)/.exec(notice)?.[1] ?? '';
        for (const n of named.split(',').map((part) => Number(part.trim())).filter((n) => n > 0)) {
          for (const token of tokensIn(lines[n - 1] ?? '')) this.#plainSaid.add(token);
        }
      }
    }
  }

  plainSaid(token: string): boolean {
    return this.#plainSaid.has(token);
  }

  hiddenSaid(machine: string, docKey: string): boolean {
    return this.#hiddenSaid.has(`${machine}\0${docKey}`);
  }

  readonly #hiddenSaid = new Set<string>();

  /**
   * The documents someone (the colleague, or a user through a file) ever changed beyond words a reading shows
   * whole: a HIDDEN_EDIT notice about any other is about a document nobody edited where reads cannot see.
   */
  readonly #touchedUnseen = new Set<string>();

  /** After an edit of the document `docKey` (unknown: a file no document has yet): whether it stays within what reads show. */
  noteEditOf(docKey: string | undefined, snippets: readonly Snippet[] | undefined): void {
    const seen = snippets !== undefined && snippets.length > 0 && snippets.every((snippet) => SHOWN_KINDS.has(snippet.kind));
    if (docKey !== undefined && !seen) this.#touchedUnseen.add(docKey);
  }

  touchedUnseen(docKey: string): boolean {
    return this.#touchedUnseen.has(docKey);
  }

  /** A colleague's removal of a token that a machine cannot see (made in the stated rename-or-move window). */
  noteUnseenRemoval(machine: string, token: string): void {
    this.#unseenRemovals.add(`${machine}\0${token}`);
  }

  unseenRemoval(machine: string, token: string): boolean {
    return this.#unseenRemovals.has(`${machine}\0${token}`);
  }

  readonly #unseenRemovals = new Set<string>();

  /**
   * Tokens of a machine's file that another machine's write at the same moment overwrote in the document
   * (README's window: two writers overwriting one document at once): that machine's next runs must put each
   * back or keep it in a conflict copy, never drop it silently (lostUpdatesKept).
   */
  readonly lostUpdates = new Map<string, Set<string>>();
  /** Tokens overwritten so (counted, not failed: the next runs are checked). */
  lostUpdated = 0;

  /** `minute`: the service's minute the overwrite was found in. */
  noteLostUpdate(machine: string, token: string, minute: string | undefined): void {
    const tokens = this.lostUpdates.get(machine) ?? new Set<string>();
    if (!tokens.has(token)) this.lostUpdated += 1;
    this.lostUpdates.set(machine, tokens.add(token));
    if (minute !== undefined) this.#lostAt.set(`${machine}\0${token}`, minute);
  }

  /**
   * A token of `machine`'s still waiting to be put back, overwritten in `minute` itself: the other writer's record,
   * appended in that minute, reaches this machine once it is over (README "The windows that remain").
   */
  lostThisMinute(machine: string, token: string, minute: string | undefined): boolean {
    return minute !== undefined && this.lostUpdates.get(machine)?.has(token) === true && this.#lostAt.get(`${machine}\0${token}`) === minute;
  }

  readonly #lostAt = new Map<string, string>();

  dropped(machine: string, token: string): boolean {
    return this.#dropped.get(machine)?.has(token) ?? false;
  }

  #droppedBy(machine: string): Set<string> {
    let set = this.#dropped.get(machine);
    if (!set) this.#dropped.set(machine, (set = new Set()));
    return set;
  }
}

/** Snippets of plain words in running text, which a reading shows exactly: an edit of only these hides nothing. */
const SHOWN_KINDS: ReadonlySet<string> = new Set(['words', 'escape', 'append', 'nested-item']);

/**
 * Issue 44: no HIDDEN_EDIT notice about a document nobody edited. A run that says a document holds an edit reads
 * cannot show, of one nobody ever changed beyond plain words, is wrong (soak seeds 500, 502, 601: another machine's
 * write read before its record came, taken for a hidden edit).
 */
function hiddenEditsTrue(book: Book, check: SyncCheck): string[] {
  const docKeys = new Map(check.rows.map((row) => [row.path, row.docKey as string]));
  return (check.report?.results ?? []).flatMap((r) => {
    const docKey = docKeys.get(r.path);
    if (!r.ok || !(r.detail ?? '').includes('HIDDEN_EDIT') || docKey === undefined || book.touchedUnseen(docKey)) return [];
    return [`issue 44: ${check.machine}:${r.path} was said to hold an edit reads cannot show (HIDDEN_EDIT), but nobody edited its document beyond plain words`];
  });
}

/** What one run said about one file: held, in conflict, failed, waiting, or simplified. */
export type Said = { readonly exempt: boolean; readonly simplified: boolean };

export function saidAbout(report: SyncReport | undefined, path: string, row: DocumentSummary | undefined): Said {
  // A move's result names the file's new path and where it came `from` (a move that failed leaves the file there).
  const results = report?.results.filter((r) => r.path === path || r.from === path) ?? [];
  const exempt =
    report === undefined ||
    results.some((r) => !r.ok || r.result === 'held' || r.result === 'conflict') ||
    (report.pending.some((p) => p.path === path)) ||
    report.problems.some((p) => p.path === path) ||
    row?.heldCode != null ||
    row?.conflict === true;
  const simplified = results.some((r) => r.ok && (r.detail ?? '').includes('FORMATTING_SIMPLIFIED'));
  return { exempt, simplified };
}

export type SyncCheck = {
  readonly machine: string;
  readonly mode: 'two-way' | 'push' | 'pull';
  /** The run published files as they are, by the user's word (--force, resolve --mine): invariant 2 does not apply. */
  readonly forced: boolean;
  readonly report: SyncReport | undefined;
  readonly filesBefore: ReadonlyMap<string, string>;
  readonly filesAfter: ReadonlyMap<string, string>;
  readonly rows: readonly DocumentSummary[];
  /** The machine's rows before the run (for the stated same-minute window). */
  readonly rowsBefore?: readonly DocumentSummary[];
  /** The other machines' rows before the run (their readings: the same-minute window of README's first bullet). */
  readonly peerRowsBefore?: readonly DocumentSummary[];
  readonly docsBefore: readonly DumpedNode[];
  readonly docsAfter: readonly DumpedNode[];
  /**
   * The machines whose runs went on at the same time (World.together): what their users removed may be gone
   * from a document, and what they wrote may stand in one this run finished before (the next run pulls it).
   */
  readonly alongside?: readonly string[];
  /** The documents those machines wrote meanwhile (docKeys): a write of this run's may have been overwritten there. */
  readonly writtenAlongside?: ReadonlySet<string>;
  /** The service's minute when the run ended (as modifiedTime gives it). */
  readonly now?: string;
  /**
   * The service's minute when the run began: a minute may pass between its calls (racesBetween), so its reads fall
   * anywhere from then to `now`.
   */
  readonly startedAt?: string;
  /** The colleague's saves while the run was under way: the tokens each document (docKey) got, the next run's to pull. */
  readonly savedDuring?: ReadonlyMap<string, ReadonlySet<string>>;
};

/** A token this run's machine's user removed, or a user of a machine whose run went on at the same time. */
const droppedAround = (book: Book, check: SyncCheck, token: string): boolean => [check.machine, ...(check.alongside ?? [])].some((machine) => book.dropped(machine, token));

/** Invariants 1, 2 and 4 after one sync of one machine, and no duplicate. Returns the problems found. */
export function checkSync(book: Book, check: SyncCheck): string[] {
  book.noteHidden(check.machine, check.report, check.rows);
  book.notePlain(check.report, check.filesAfter);
  // A run stopped by a signal said so, and left the rest to the next run: what it did not do is no broken
  // promise (invariants 1 and 4); what it did must still lose nothing (invariant 2).
  const finished = check.report?.interrupted === true ? { ...check, report: undefined } : check;
  return [...lostUpdatesKept(book, check), ...published(book, finished), ...nothingUnseenOverwritten(book, check), ...formattingKept(book, finished), ...hiddenEditsTrue(book, check), ...duplicates(check.docsAfter)];
}

/**
 * Invariant 1: every byte saved is published, or the file is reported held. For every file the run did not
 * report: each snippet a user wrote that the file holds stands exactly so in its document, and (two-way)
 * every token the document shows is in the file.
 */
function published(book: Book, check: SyncCheck): string[] {
  if (!check.report) return [];
  const problems: string[] = [];
  const docs = new Map(check.docsAfter.map((doc) => [doc.dentryUuid, doc]));
  const rows = new Map(check.rows.map((row) => [row.path, row]));
  for (const [path, text] of check.filesAfter) {
    if (isConflictCopy(path)) continue;
    const row = rows.get(path);
    const said = saidAbout(check.report, path, row);
    if (said.exempt) continue;
    const doc = row ? docs.get(row.docKey) : undefined;
    // A document deleted remotely that this run did not list is news for a later run, unless the file has edits of its own.
    if (!row || (!doc && contentHash(text) !== row.localHash)) {
      if (check.mode !== 'pull') problems.push(`invariant 1: ${check.machine}:${path} has ${row ? 'edits, its document is gone,' : 'no document'} and the run did not say why`);
      continue;
    }
    if (!doc) continue;
    if (check.mode === 'pull') continue;
    // Published when it was last synced (checked then); a push lists nothing, so what others wrote since is the next two-way run's.
    if (check.mode === 'push' && contentHash(text) === row.localHash) continue;
    const remote = lf(doc.markdown ?? '');
    const body = lf(bodyOf(text));
    const seen = book.vault ? readerSees(body) : body;
    for (const token of tokensIn(body)) {
      // Another machine's run at the same time, which this run may have finished before, published its user's removal.
      if (!remote.includes(token) && (check.alongside ?? []).some((machine) => book.dropped(machine, token))) continue;
      // A vault's comment, and all written inside one, is never sent (README "Note vaults"): the other machines get it from the shared state (invariant 3).
      if (!seen.includes(token)) continue;
      // A push lists nothing: a colleague's later removal of published words reaches the file with the next two-way run.
      if (!remote.includes(token) && check.mode === 'push' && book.dropped('colleague', token)) continue;
      // ... nor can any run a save the colleague made while it was under way (what it read came before).
      const savedDuring = check.savedDuring?.has(doc.dentryUuid) === true && book.dropped('colleague', token);
      if (!remote.includes(token) && savedDuring) continue;
      // The colleague's edit that removed it is one the service does not show (a fence's language), said as such.
      if (!remote.includes(token) && book.dropped('colleague', token) && book.hiddenSaid(check.machine, row.docKey)) continue;
      // ... or one made with edits reads do show, taken in as plain text (seed 130031): the file keeps what reads
      // cannot show, and the record says the document holds more than the file, so an overwrite waits (FLATTEN):
      // README's stated window, counted.
      if (!remote.includes(token) && book.dropped('colleague', token) && row.inexact && UNREAD_KINDS.has(book.snippets.get(token)?.kind ?? '')) {
        book.unreadWindowed += 1;
        continue;
      }
      // ... or one made with a move or rename of the document this machine had not listed: README's stated
      // window, which no later run of this machine can see into either.
      const unseen = book.unseenRemoval(check.machine, token);
      if (!remote.includes(token) && book.dropped('colleague', token) && (unseen || inRelocationWindow(check, doc))) {
        if (!unseen) {
          book.relocationWindowed += 1;
          book.noteUnseenRemoval(check.machine, token);
        }
        continue;
      }
      // Another machine overwrote the document at the same moment (it read it before this run's write landed):
      // the stated window; this machine's next runs must keep the token (lostUpdatesKept).
      if (!remote.includes(token) && check.writtenAlongside?.has(row.docKey)) {
        book.noteLostUpdate(check.machine, token, check.now);
        continue;
      }
      // ... in this very minute: the other writer's record, which says its write replaced this one, is read only once
      // the minute is over, and nothing a read shows has changed since this machine's write (model seed 11006: a
      // link's address, overwritten by the other machine's at once, and the run that followed in the same minute).
      if (!remote.includes(token) && book.lostThisMinute(check.machine, token, check.startedAt ?? check.now)) continue;
      if (!remote.includes(token)) {
        problems.push(`invariant 1: ${check.machine}:${path} holds ${token} (${book.snippets.get(token)?.kind ?? '?'}) but its document does not, and the run did not say why`);
        continue;
      }
      const snippet = book.snippets.get(token);
      // As above: a run at the same time may have published its user's rewrite of the snippet (model seed 1004).
      const rewroteAlongside = (check.alongside ?? []).some((machine) => book.dropped(machine, token));
      if (snippet && snippet.author !== 'colleague' && body.includes(lf(snippet.text)) && !remote.includes(lf(snippet.text)) && !rewroteAlongside && !savedDuring) {
        problems.push(`invariant 1: ${check.machine}:${path} holds "${snippet.text}" (${snippet.kind}) but its document has it otherwise, and the run did not say why`);
      }
    }
    if (check.mode === 'two-way' && (check.alongside ?? []).length === 0) {
      const shown = visibleReading(doc);
      const saved = check.savedDuring?.get(doc.dentryUuid);
      // A new block reads cannot show, read in the minute of the document's time or the next, waits for the record
      // that may be on its way with its source (README: such a block waits out two minutes), the visible edit beside it too.
      // The read may have come before a minute that passed during the run: judged from the run's first minute (model
      // seed 300003: read in the next minute, a minute passed before the run ended, and the wait was taken for a loss).
      const readFrom = check.startedAt ?? check.now;
      const lately = readFrom !== undefined && Date.parse(readFrom) - Date.parse(doc.modifiedTime) <= 60_000;
      if (lately && shown.split('\n').some((line) => line.startsWith(PLACEHOLDER_PREFIX) && !body.includes(line))) continue;
      for (const token of tokensIn(shown)) if (!body.includes(token) && saved?.has(token) !== true) problems.push(`invariant 1: the document of ${check.machine}:${path} shows ${token} but the file lacks it after a two-way sync that said nothing`);
    }
  }
  return problems;
}

/**
 * A lost update at the same moment is never silent (README "The windows that remain"): each token another
 * machine's write overwrote stays in this machine's files until a run puts it back in a document or keeps it in
 * a conflict copy (or this machine's user drops it).
 */
function lostUpdatesKept(book: Book, check: SyncCheck): string[] {
  const pending = book.lostUpdates.get(check.machine);
  if (!pending || !check.report) return [];
  const problems: string[] = [];
  const inDocs = (token: string): boolean => check.docsAfter.some((doc) => (doc.markdown ?? '').includes(token));
  const inFiles = (token: string, copies: boolean): boolean => [...check.filesAfter].some(([path, text]) => isConflictCopy(path) === copies && text.includes(token));
  // A file whose document was deleted in the knowledge base goes to kbsync's trash, whole: its words are kept there
  // (model seed 7312: a colleague deleted the document whose file held the token, and the run trashed the file).
  const trashed = (check.report?.results ?? []).flatMap((r) => (r.ok && r.action === 'trash-local' ? [check.filesBefore.get(r.path) ?? ''] : []));
  for (const token of pending) {
    if (book.dropped(check.machine, token) || inDocs(token) || inFiles(token, true) || trashed.some((text) => text.includes(token))) pending.delete(token);
    else if (!inFiles(token, false)) {
      problems.push(`invariant 1: ${check.machine}'s ${token} (${book.snippets.get(token)?.kind ?? '?'}), overwritten by another machine's write at the same moment, is gone: no document, file or conflict copy holds it`);
      pending.delete(token);
    }
  }
  return problems;
}

/**
 * Invariant 2: nothing the knowledge base held is lost to a write from a machine that never saw it. A snippet
 * that stood exactly so in a document before the run and not after must be one this machine's user removed or
 * rewrote themselves.
 */
function nothingUnseenOverwritten(book: Book, check: SyncCheck): string[] {
  if (check.forced) return [];
  const problems: string[] = [];
  const after = new Map(check.docsAfter.map((doc) => [doc.dentryUuid, doc]));
  for (const doc of check.docsBefore) {
    const before = lf(doc.markdown ?? '');
    const now = after.get(doc.dentryUuid);
    const nowText = now ? lf(now.markdown ?? '') : undefined;
    for (const token of tokensIn(before)) {
      const snippet = book.snippets.get(token);
      if (!snippet || snippet.kind === 'front-matter' || !before.includes(lf(snippet.text))) continue;
      if (nowText !== undefined && nowText.includes(lf(snippet.text))) continue;
      if (droppedAround(book, check, token)) continue;
      // The colleague's own save while the run was under way replaced it (seed 3021: a fence's language rewritten).
      if (check.savedDuring?.has(doc.dentryUuid) === true && book.dropped('colleague', token)) continue;
      if (inSameMinuteWindow(check, doc, snippet.author)) {
        book.windowed += 1;
        continue;
      }
      if (inRelocationWindow(check, doc)) {
        book.relocationWindowed += 1;
        continue;
      }
      // Only its formatting gone, on a line a run said it had taken in plain (merge.webEdits "merge").
      if (nowText !== undefined && nowText.includes(token) && book.plainSaid(token)) {
        book.formattingWindowed += 1;
        continue;
      }
      // A deleted document whose text lives on in a file of this machine, or in a document, was moved, not lost (model
      // seed 6018: in two runs at once, the other machine's move made the document anew, and this machine never had the file).
      if (nowText === undefined && [...check.filesAfter.values(), ...check.docsAfter.map((d) => d.markdown ?? '')].some((text) => lf(text).includes(lf(snippet.text)))) continue;
      const where = nowText === undefined ? 'its document was deleted' : nowText.includes(token) ? 'its formatting was lost' : 'it is gone';
      problems.push(`invariant 2: "${snippet.text}" (${snippet.kind}, by ${snippet.author}) stood in "${doc.title}" before ${check.machine}'s sync and not after (${where}); ${check.machine} never had it`);
    }
  }
  return problems;
}

/**
 * Invariant 2 for a colleague's saves made while two runs were under way (between their calls): each snippet
 * stands in its document after them, unless a later save of the colleague's removed it, the save landed between
 * a run's read of the document and its write of it (`windowed`: README's stated window, counted), only its
 * formatting went where a run said so, or its document was deleted with the text kept in a file.
 */
export function savesKept(
  book: Book,
  saves: readonly { readonly docKey: string; readonly tokens: readonly string[]; readonly windowed: boolean; readonly relocated?: boolean }[],
  docsAfter: readonly DumpedNode[],
  files: readonly ReadonlyMap<string, string>[],
): string[] {
  const problems: string[] = [];
  for (const save of saves) {
    const doc = docsAfter.find((d) => d.dentryUuid === save.docKey);
    const now = doc ? lf(doc.markdown ?? '') : undefined;
    for (const token of save.tokens) {
      const snippet = book.snippets.get(token);
      if (!snippet || (now !== undefined && now.includes(lf(snippet.text))) || book.dropped('colleague', token)) continue;
      if (save.windowed) {
        book.readWriteWindowed += 1;
        continue;
      }
      // Made inside code (or the like) in the minute of the colleague's move or rename, before a machine followed
      // it: the move explains the document's time, and the edit is taken for it (README's stated window; model
      // seed 1 with holds: a code line saved as the document was moved, a moment before a run's listing).
      if (save.relocated === true && UNREAD_KINDS.has(snippet.kind)) {
        book.relocationWindowed += 1;
        continue;
      }
      if (now !== undefined && now.includes(token) && book.plainSaid(token)) {
        book.formattingWindowed += 1;
        continue;
      }
      if (now === undefined && files.some((machine) => [...machine.values()].some((text) => lf(text).includes(lf(snippet.text))))) continue;
      const where = now === undefined ? 'its document was deleted' : now.includes(token) ? 'its formatting was lost' : 'it is gone';
      problems.push(`invariant 2: "${snippet.text}" (${snippet.kind}), a colleague's save while two runs were under way, is not in "${doc?.title ?? save.docKey}" after them (${where})`);
    }
  }
  return problems;
}

/** What the service's reading does not show of a snippet: inside code, a fence's language, a link's address, a table, HTML. */
const UNREAD_KINDS: ReadonlySet<string> = new Set(['code', 'fence', 'link-url', 'table', 'html']);

/**
 * Invariant 4: a colleague's edit of plain words, pulled into a file, keeps every piece of formatting around
 * it: the file comes to hold the block exactly as the colleague left it, or the run says FORMATTING_SIMPLIFIED.
 */
function formattingKept(book: Book, check: SyncCheck): string[] {
  if (!check.report || check.mode === 'push') return [];
  const problems: string[] = [];
  const rows = new Map(check.rows.map((row) => [row.path, row]));
  const docs = new Map(check.docsAfter.map((doc) => [doc.dentryUuid, doc]));
  for (const [path, text] of check.filesAfter) {
    if (isConflictCopy(path)) continue;
    const row = rows.get(path);
    const doc = row ? docs.get(row.docKey) : undefined;
    if (!row || !doc) continue;
    const said = saidAbout(check.report, path, row);
    if (said.exempt || said.simplified) continue;
    const before = lf(check.filesBefore.get(path) ?? '');
    const now = lf(text);
    const remote = lf(doc.markdown ?? '');
    for (const token of tokensIn(now)) {
      const snippet = book.snippets.get(token);
      if (!snippet?.pulled || before.includes(token)) continue;
      // A file made from the service's plain reading never held the block's formatting: nothing to keep.
      if (snippet.original !== undefined && !before.includes(lf(snippet.original))) continue;
      const block = lf(snippet.pulled);
      if (!remote.includes(block)) continue;
      if (!now.includes(block)) problems.push(`invariant 4: ${check.machine}:${path} pulled the colleague's edit ${token} but not as written and said nothing:\n    expected the block: ${JSON.stringify(block)}`);
    }
  }
  return problems;
}

/** No document twice: every title in the model is unique, so a repeated or uniquified title is a copy kbsync made. */
export function duplicates(docs: readonly DumpedNode[]): string[] {
  const seen = new Map<string, number>();
  for (const doc of docs) seen.set(doc.title, (seen.get(doc.title) ?? 0) + 1);
  return [...seen]
    .filter(([title, count]) => count > 1 || / \(\d+\)$/.test(title))
    .map(([title, count]) => `duplicate: "${title}" ${count > 1 ? `is ${count} documents` : 'was made unique: a second document for one title'}`);
}

/**
 * Invariant 3, after quiescence: machines that have seen the same history hold the same bytes (line endings
 * included) for every file, unless one of them is holding that file for a reason it reported.
 */
type Settled = {
  readonly name: string;
  readonly files: ReadonlyMap<string, string>;
  readonly rows: readonly DocumentSummary[];
  /** The paths the machine's last run reported held or refused, with their reasons. */
  readonly held?: ReadonlySet<string>;
};

/**
 * Invariant 3 at rest: every path holds the same bytes on every machine, except where a machine waits on a
 * person (a hold, a conflict), or where a run said a move could not carry the document (`apart`: the docKeys
 * whose old document stays in its old place), which the machines then keep under different paths, same text.
 */
export function converged(machines: readonly Settled[], apart: ReadonlySet<string> = new Set()): string[] {
  const problems: string[] = [];
  const waiting = (m: (typeof machines)[number], path: string): boolean => {
    // Said held in its last run (a new file with placeholders, a move that would lose edits): the run says why.
    if (m.held?.has(path)) return true;
    const row = m.rows.find((r) => r.path === path);
    if (row) return row.heldCode !== null || row.conflict;
    // Its copy of the document another machine keeps at this path is held or refused (under its own path):
    // reported there (seed 140022: front matter that is not YAML kept it from following the other's rename).
    const keys = new Set(machines.flatMap((other) => other.rows.filter((r) => r.path === path).map((r) => r.docKey as string)));
    if (m.rows.some((r) => keys.has(r.docKey) && (r.heldCode !== null || r.conflict || m.held?.has(r.path) === true))) return true;
    // A held move keeps its row at the old path: the file at the new one is the one the hold describes.
    const text = m.files.get(path);
    return text !== undefined && m.rows.some((r) => r.heldCode !== null && r.heldLocalHash === hashText(text) && !m.files.has(r.path));
  };
  const paths = new Set(machines.flatMap((m) => [...m.files.keys()].filter((path) => !isConflictCopy(path))));
  for (const path of paths) {
    const holders = machines.filter((m) => !waiting(m, path));
    if (holders.length < machines.length && machines.some((m) => waiting(m, path))) continue;
    const versions = new Map<string | undefined, string[]>();
    for (const m of holders) {
      const text = m.files.get(path);
      versions.set(text, [...(versions.get(text) ?? []), m.name]);
    }
    if (versions.size > 1 && !placedApart(machines, path, apart)) {
      const described = [...versions].map(([text, names]) => `${names.join('+')}: ${text === undefined ? 'no file' : `${text.length} chars, ${text.includes('\r\n') ? 'CRLF' : 'LF'}`}`);
      problems.push(`invariant 3: ${path} differs between machines (${described.join('; ')})${firstDifference([...versions.keys()])}`);
    }
  }
  return problems;
}

function placedApart(machines: readonly Settled[], path: string, apart: ReadonlySet<string>): boolean {
  const keys = new Set(machines.flatMap((m) => m.rows.filter((r) => r.path === path).map((r) => r.docKey as string)));
  const [key] = keys;
  if (keys.size !== 1 || key === undefined || !apart.has(key)) return false;
  const rows = machines.map((m) => ({ m, row: m.rows.find((r) => r.docKey === key) }));
  // A machine waiting on a person for the document (its own path's check says so) has its own text meanwhile.
  if (rows.some(({ row }) => row !== undefined && (row.heldCode !== null || row.conflict))) return rows.every(({ row }) => row !== undefined);
  const texts = rows.map(({ m, row }) => (row ? m.files.get(row.path) : undefined));
  return texts.every((text) => text !== undefined && text === texts[0]);
}

function firstDifference(texts: readonly (string | undefined)[]): string {
  const [a, b] = texts;
  if (a === undefined || b === undefined) return '';
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `\n    first difference at ${i}: ${JSON.stringify(a.slice(Math.max(0, i - 40), i + 60))}\n                      vs ${JSON.stringify(b.slice(Math.max(0, i - 40), i + 60))}`;
}
