import { parseBlock } from '../../src/api/blocks.js';
import type { RawBlock } from '../../src/api/schemas.js';
import type { ResolveReport } from '../../src/cli/commands/resolve.js';
import type { DumpedNode } from '../../src/emulator/index.js';
import { markdownToBlocks } from '../../src/emulator/markdown/to-blocks.js';
import type { DocumentSummary } from '../../src/ledger/index.js';
import { blocksToMarkdown } from '../../src/markdown/index.js';
import { isConflictCopy, normaliseBody } from '../helpers/reliability.js';
import { bodyOf, converged, duplicates, visibleReading } from '../model/oracle.js';
import { hashText } from '../../src/local/fingerprint.js';
import { COLLEAGUE, type EditLog } from './edits.js';
import { holdVerdict, type HoldVerdict, type Pages, type Team } from './rules.js';

/**
 * The soak's verdict once everything has settled: converged means every edit made on any side is in the
 * knowledge base and in both folders (byte for byte alike on both machines), nothing is lost, no file is held
 * that the rule (rules.ts) would not hold, `kbsync resolve` lists exactly the files that wait, and no document
 * is doubled. Computed from the outside: the files, the ledgers' pairing, what the service stores, and what
 * `kbsync resolve --json` lists on each machine.
 */
export type MachineAtRest = {
  readonly name: string;
  readonly files: ReadonlyMap<string, string>;
  readonly rows: readonly DocumentSummary[];
  /** The paths whose record remembers a hidden edit that stands: held as HIDDEN_EDIT whatever the row's code (README). */
  readonly hiddenEdits: ReadonlySet<string>;
  readonly listed: ResolveReport;
};

export type HeldFile = { readonly machine: string; readonly path: string; readonly code: string; readonly allowed: boolean; readonly why: string };
export type ConflictFile = { readonly machine: string; readonly path: string; readonly genuine: boolean };

/**
 * Where each expected token was found. `lost in the no-conditional-write window`: a colleague's words written
 * over by a machine whose read of the document came before their save (calls.ts), a loss the service's lack of
 * a conditional write leaves open; any other loss is a finding.
 */
export const PLACES = [
  'everywhere',
  "in the knowledge base only: a colleague's hidden edit",
  'waiting in an allowed hold',
  'waiting in a hold without cause',
  'in a conflict copy only',
  'on one side only, nothing held',
  'lost in the no-conditional-write window',
  'lost',
] as const;
export type Place = (typeof PLACES)[number];

/** What the soak saw besides the end state: who wrote over what unread (calls.ts), and the paths each machine said FORMATTING_UNSEEN of. */
export type Witness = {
  readonly overwrittenUnread: (token: string) => boolean;
  readonly formattingSaid: ReadonlyMap<string, ReadonlySet<string>>;
  /** Per machine, the paths whose document it said it keeps without the id that deletes it (a create's answer lost to a kill). */
  readonly deleteIdLost: ReadonlyMap<string, ReadonlySet<string>>;
  /** The source the shared state keeps for a document (by docKey): where front matter travels between machines. */
  readonly sharedSource: (docKey: string) => string | undefined;
};

/**
 * The contract gives the id that deletes a document only in the answer to its create: a daemon killed while its
 * create was on its way keeps the document in step with the file, says it cannot delete it, and a delete of the
 * file then waits for a person (NOT_CREATED; README "Crashes"). Soak 721's replay: B killed as it created a page.
 */
const DELETE_ID_LOST: HoldVerdict = { allowed: true, why: 'a document whose create answer a kill lost (the contract gives its delete id only there)' };

/** A colleague's new paragraph whose formatting the knowledge base no longer has, and whether a FORMATTING_UNSEEN named its file first. */
export type FormattingLoss = { readonly token: string; readonly noticed: boolean };

export type Judgement = {
  readonly held: readonly HeldFile[];
  readonly conflicts: readonly ConflictFile[];
  readonly tokens: ReadonlyMap<Place, readonly string[]>;
  /** Formatting a colleague gave words they wrote, gone from the knowledge base (README's stated window when noticed). */
  readonly formattingLost: readonly FormattingLoss[];
  readonly duplicates: readonly string[];
  readonly violations: readonly string[];
};

/** kbsync's placeholder for a block a read does not show (code, a table, an image): one line each. */
const PLACEHOLDER = /^<!-- kbsync: .* -->$/gm;

/**
 * What a read of the service shows of a text (its blocks as Markdown): formatting hidden, and code, tables and
 * images each one placeholder alike (a file's placeholder comment reads as an unknown block, a table as a table).
 */
function reading(markdown: string): string {
  return normaliseBody(markdown).replace(PLACEHOLDER, '<!-- kbsync -->');
}

/** What a read of the service would show of a file once sent. */
export function visibleOf(markdown: string): string {
  let lists = 0;
  const blocks = markdownToBlocks(bodyOf(markdown).replace(/\r\n?/g, '\n'), () => `list-${++lists}`).map((block, index) => parseBlock({ id: `b${index}`, index, ...block.payload } as RawBlock, index));
  return reading(blocksToMarkdown(blocks));
}

const conflicted = (row: DocumentSummary): boolean => row.conflict || row.heldCode === 'CONFLICT_OPEN';

/** What a row waits for a person under: its code, or HIDDEN_EDIT while a hidden edit stands (null: nothing). */
const standing = (m: MachineAtRest, row: DocumentSummary): string | null => row.heldCode ?? (m.hiddenEdits.has(row.path) ? 'HIDDEN_EDIT' : null);

/**
 * Each file's ledger row: the row at its path, or for a file whose move is held (MOVE_LOSSY, MOVE_EDITED), the
 * held row at its old path, whose file this is (its text is the one the hold was decided on).
 */
function rowsByFile(m: MachineAtRest): Map<string, DocumentSummary> {
  const byPath = new Map(m.rows.map((row) => [row.path, row]));
  const out = new Map<string, DocumentSummary>();
  for (const [path, text] of m.files) {
    if (isConflictCopy(path)) continue;
    const row = byPath.get(path) ?? m.rows.find((r) => r.heldCode !== null && !m.files.has(r.path) && r.heldLocalHash === hashText(text));
    if (row) out.set(path, row);
  }
  return out;
}

export function judge(machines: readonly MachineAtRest[], docs: readonly DumpedNode[], log: EditLog, pages: Pages, apart: ReadonlySet<string>, team: Team, witness: Witness): Judgement {
  const violations: string[] = [];
  const byKey = new Map(docs.map((doc) => [doc.dentryUuid as string, doc]));
  const held: HeldFile[] = [];
  const conflicts: ConflictFile[] = [];
  const waiting = new Map<string, Map<string, boolean>>(); // machine → path → allowed
  for (const m of machines) {
    const here = new Map<string, boolean>();
    waiting.set(m.name, here);
    for (const row of m.rows) {
      const doc = byKey.get(row.docKey);
      if (conflicted(row)) {
        const listed = m.listed.conflicts.find((c) => c.path === row.path);
        // A clash of lines both sides changed, as `kbsync resolve` lists it: edits of different lines of one block merge (mergeLines).
        const genuine = listed?.clashes.some((clash) => clash.mine !== clash.base && clash.theirs !== clash.base) ?? false;
        conflicts.push({ machine: m.name, path: row.path, genuine });
        here.set(row.path, genuine);
        if (!listed) violations.push(`${m.name}:${row.path} is in conflict, but \`kbsync resolve\` does not list it`);
        else if (!genuine) violations.push(`${m.name}:${row.path} is in conflict with no clash where both sides changed the same lines: ${JSON.stringify(listed.clashes).slice(0, 300)}`);
        continue;
      }
      const code = standing(m, row);
      if (code === null) continue;
      const verdict = code === 'NOT_CREATED' && witness.deleteIdLost.get(m.name)?.has(row.path) ? DELETE_ID_LOST : holdVerdict(code, doc ? pages.of(doc) : undefined, team);
      held.push({ machine: m.name, path: row.path, code, ...verdict });
      here.set(row.path, verdict.allowed);
      if (!verdict.allowed) violations.push(`${m.name}:${row.path} is held (${code}) ${verdict.why}`);
      const text = m.files.get(row.path);
      if (doc && text !== undefined && normaliseBody(text) === normaliseBody(doc.markdown ?? '')) violations.push(`${m.name}:${row.path} is held (${code}) with nothing to settle: the file holds what its document holds`);
    }
    // A file whose move is held waits under its row's old path.
    for (const [path, row] of rowsByFile(m)) if (path !== row.path && here.has(row.path)) here.set(path, here.get(row.path) ?? false);
    violations.push(...listedExactly(m), ...pairing(m, byKey, here));
  }
  const settled = machines.map((m) => ({ name: m.name, files: m.files, rows: m.rows, held: new Set(waiting.get(m.name)?.keys() ?? []) }));
  violations.push(...converged(settled, apart));
  const twice = [...duplicates(docs), ...machines.flatMap((m) => doubledRows(m))];
  violations.push(...twice);
  const tokens = placeTokens(machines, docs, log, waiting, witness);
  const formattingLost = lostFormatting(machines, docs, log, witness);
  for (const loss of formattingLost.filter((l) => !l.noticed)) violations.push(`the formatting a colleague gave "${log.written.get(loss.token)?.text ?? loss.token}" is gone from the knowledge base, and no FORMATTING_UNSEEN named a file of it ${describe(loss.token, machines, docs)}`);
  // One line per place and whereabouts (a held file's tokens together), naming who wrote them.
  for (const place of ['waiting in a hold without cause', 'on one side only, nothing held', 'lost'] as const) {
    const byWhere = new Map<string, string[]>();
    for (const token of tokens.get(place) ?? []) byWhere.set(describe(token, machines, docs), [...(byWhere.get(describe(token, machines, docs)) ?? []), token]);
    for (const [where, list] of byWhere) {
      const who = [...new Set(list.map((token) => { const w = log.written.get(token); return `${w?.author ?? '?'} ${w?.kind ?? '?'}`; }))].join(', ');
      violations.push(`${list.length} token(s) ${place}: ${list.slice(0, 6).join(', ')}${list.length > 6 ? ', …' : ''} (${who}) ${where}`);
    }
  }
  return { held, conflicts, tokens, formattingLost, duplicates: twice, violations };
}

/** `kbsync resolve --json` lists exactly the held files (with their codes, a standing hidden edit's included) and the open conflicts the ledger has. */
function listedExactly(m: MachineAtRest): string[] {
  const problems: string[] = [];
  const rows = new Set(m.rows.filter((row) => standing(m, row) !== null && !conflicted(row)).map((row) => `${row.path} (${standing(m, row)})`));
  const listed = new Set(m.listed.held.map((h) => `${h.path} (${h.code})`));
  for (const entry of rows) if (!listed.has(entry)) problems.push(`${m.name}:${entry} is held, but \`kbsync resolve\` does not list it`);
  for (const entry of listed) if (!rows.has(entry)) problems.push(`\`kbsync resolve\` on ${m.name} lists ${entry}, which its ledger does not hold`);
  const inConflict = new Set(m.rows.filter(conflicted).map((row) => row.path));
  for (const c of m.listed.conflicts) if (!inConflict.has(c.path)) problems.push(`\`kbsync resolve\` on ${m.name} lists a conflict in ${c.path}, which its ledger does not have`);
  return problems;
}

/** Every file has its document, says what it says (as far as a read shows), or waits with a reason; every document has its file. */
function pairing(m: MachineAtRest, byKey: ReadonlyMap<string, DumpedNode>, waiting: ReadonlyMap<string, boolean>): string[] {
  const problems: string[] = [];
  const rows = rowsByFile(m);
  for (const [path, text] of m.files) {
    if (isConflictCopy(path)) continue;
    const row = rows.get(path);
    const doc = row ? byKey.get(row.docKey) : undefined;
    if (!row || !doc) problems.push(`${m.name}:${path} has ${row ? 'a document that is gone' : 'no document'}`);
    else if (!waiting.has(path) && visibleOf(text) !== reading(visibleReading(doc))) problems.push(`${m.name}:${path} differs from its document, and nothing says why`);
    // Every document here was made from a file, whose source the shared state keeps: a file that came to hold
    // placeholders instead lost its code, tables or images (what the document holds is not in it).
    if (/^<!-- kbsync: .* -->$/m.test(text)) problems.push(`${m.name}:${path} holds kbsync's placeholders where its source stood (code, tables or images it was written with)`);
  }
  const paired = new Set(m.rows.map((row) => row.docKey as string));
  for (const [key, doc] of byKey) if (!paired.has(key)) problems.push(`"${doc.title}" has no file on ${m.name}`);
  return problems;
}

function doubledRows(m: MachineAtRest): string[] {
  const paths = new Map<string, string[]>();
  for (const row of m.rows) paths.set(row.docKey, [...(paths.get(row.docKey) ?? []), row.path]);
  return [...paths.values()].filter((list) => list.length > 1).map((list) => `one document is ${list.length} files on ${m.name}: ${list.join(', ')}`);
}

/** What the service's reading does not show of a snippet: inside code, a fence's language, a table, a link's address, HTML. */
const UNREAD_KINDS: ReadonlySet<string> = new Set(['code', 'fence', 'table', 'link-url', 'html']);

/**
 * Where each token written and not removed since stands now. A colleague's edit where reads cannot see can
 * reach no file (nothing shows it to kbsync): kept in the knowledge base, it is where it can be.
 */
function placeTokens(machines: readonly MachineAtRest[], docs: readonly DumpedNode[], log: EditLog, waiting: ReadonlyMap<string, ReadonlyMap<string, boolean>>, witness: Witness): Map<Place, string[]> {
  const places = new Map<Place, string[]>(PLACES.map((place) => [place, []]));
  for (const token of log.expected()) {
    // Front matter lives in the shared state, not in the document's body.
    const inKb = docs.filter((doc) => (doc.markdown ?? '').includes(token));
    const needKb = log.written.get(token)?.kind !== 'front-matter';
    const found = machines.map((m) => {
      const files = [...m.files].filter(([path, text]) => !isConflictCopy(path) && text.includes(token)).map(([path]) => path);
      const copies = [...m.files].filter(([path, text]) => isConflictCopy(path) && text.includes(token));
      // The file that waits: one holding the token, or this machine's file of the document holding it.
      const ownFiles = m.rows.filter((row) => inKb.some((doc) => doc.dentryUuid === row.docKey)).map((row) => row.path);
      const waits = [...files, ...ownFiles].map((path) => waiting.get(m.name)?.get(path)).filter((allowed) => allowed !== undefined);
      return { files, copies: copies.length, waits };
    });
    // A hold explains a token's absence only where it stands in the way: on each machine whose file lacks a
    // token the knowledge base has, or front matter the shared state has (published by a machine whose file has
    // it: the lacking machine's hold of that document, a conflict say, takes nothing in until a person settles
    // it; soak seed 726), or, for one that never reached either, on a machine whose file has it. A hold elsewhere
    // (the other machine's file of that document) explains nothing here.
    const lacking = found.filter((f) => f.files.length === 0);
    const having = found.filter((f) => f.files.length > 0);
    const shared = needKb ? [] : sharedHaving(machines, token, witness);
    const lackingWaits = machines.filter((_, i) => found[i]?.files.length === 0).map((m) => waitsOn(m, shared, waiting));
    const explainingWaits =
      inKb.length > 0 && lacking.every((f) => f.waits.length > 0)
        ? lacking.flatMap((f) => f.waits)
        : shared.length > 0 && lackingWaits.every((waits) => waits.length > 0)
          ? lackingWaits.flat()
          : (inKb.length === 0 || !needKb) && having.some((f) => f.waits.length > 0)
            ? having.flatMap((f) => f.waits)
            : undefined;
    let place: Place;
    const written = log.written.get(token);
    if ((!needKb || inKb.length > 0) && found.every((f) => f.files.length > 0)) place = 'everywhere';
    else if (inKb.length > 0 && written?.author === COLLEAGUE && UNREAD_KINDS.has(written.kind) && found.every((f) => f.files.length === 0)) place = "in the knowledge base only: a colleague's hidden edit";
    else if (inKb.length === 0 && found.every((f) => f.files.length === 0 && f.copies === 0)) place = written?.author === COLLEAGUE && witness.overwrittenUnread(token) ? 'lost in the no-conditional-write window' : 'lost';
    else if (explainingWaits !== undefined) place = explainingWaits.includes(false) ? 'waiting in a hold without cause' : 'waiting in an allowed hold';
    else if (found.some((f) => f.copies > 0)) place = 'in a conflict copy only';
    else place = 'on one side only, nothing held';
    places.get(place)?.push(token);
  }
  return places;
}

/** The documents of files holding `token` whose source the shared state keeps with it: published to the other machines. */
function sharedHaving(machines: readonly MachineAtRest[], token: string, witness: Witness): string[] {
  const docKeys = machines.flatMap((m) => [...rowsByFile(m)].filter(([path]) => m.files.get(path)?.includes(token) === true).map(([, row]) => row.docKey as string));
  return [...new Set(docKeys)].filter((docKey) => witness.sharedSource(docKey)?.includes(token) === true);
}

/** Whether each of a machine's files of these documents waits, and with cause (allowed). */
const waitsOn = (m: MachineAtRest, docKeys: readonly string[], waiting: ReadonlyMap<string, ReadonlyMap<string, boolean>>): boolean[] =>
  m.rows.filter((row) => docKeys.includes(row.docKey)).map((row) => waiting.get(m.name)?.get(row.path)).filter((allowed) => allowed !== undefined);

/**
 * The formatting a colleague's new paragraph gave its words (mutate.ts: bold, emphasis, inline code, a link),
 * found around its token wherever the paragraph went, words added to it since or not.
 */
function formattingOf(text: string, token: string): RegExp | undefined {
  if (text.includes('](https://example.com/')) return new RegExp(`\\]\\(https://example\\.com/${token}\\)`);
  if (text.startsWith('**')) return new RegExp(`\\*\\*[^*\\n]*${token}[^*\\n]*\\*\\*`);
  if (text.startsWith('*')) return new RegExp(`(?<!\\*)\\*[^*\\n]*${token}[^*\\n]*\\*(?!\\*)`);
  if (text.includes('`')) return new RegExp(`\`[^\`\\n]*${token}[^\`\\n]*\``);
  return undefined;
}

/**
 * The colleague's formatted paragraphs whose words the knowledge base still has and whose formatting it does
 * not: written over by a push from a file that took the words in from a plain reading. README's stated window
 * when a machine said FORMATTING_UNSEEN of a file holding those words (counted); a finding otherwise.
 */
function lostFormatting(machines: readonly MachineAtRest[], docs: readonly DumpedNode[], log: EditLog, witness: Witness): FormattingLoss[] {
  const losses: FormattingLoss[] = [];
  for (const token of log.expected()) {
    const written = log.written.get(token);
    const formatting = written?.author === COLLEAGUE && written.kind === 'paragraph' ? formattingOf(written.text, token) : undefined;
    if (!formatting) continue;
    const inKb = docs.filter((doc) => (doc.markdown ?? '').includes(token));
    if (inKb.length === 0 || inKb.some((doc) => formatting.test(doc.markdown ?? ''))) continue;
    // Said of the file on any machine, under any name it has had (a rename or move since takes nothing back).
    const said = new Set([...witness.formattingSaid.values()].flatMap((paths) => [...paths]));
    const noticed = machines.some((m) => [...m.files].some(([path, text]) => text.includes(token) && [...log.aliases(path)].some((alias) => said.has(alias))));
    losses.push({ token, noticed });
  }
  return losses;
}

/**
 * A daemon said HIDDEN_EDIT (an edit reads cannot show) of a page no colleague touched, or one whose every
 * colleague's save changed what a read shows (the soak's colleague changes one thing per save, so no hidden
 * change rides along): a notice naming a file with nothing to settle. `said`: each machine's paths it said so of.
 */
export function falseHiddenNotices(said: ReadonlyMap<string, ReadonlySet<string>>, machines: readonly MachineAtRest[], docs: readonly DumpedNode[], pages: Pages): string[] {
  const byKey = new Map(docs.map((doc) => [doc.dentryUuid as string, doc]));
  const problems: string[] = [];
  for (const m of machines) {
    const rows = rowsByFile(m);
    for (const path of said.get(m.name) ?? []) {
      const row = rows.get(path) ?? m.rows.find((r) => r.path === path);
      const doc = row ? byKey.get(row.docKey) : undefined;
      const page = doc ? pages.of(doc) : undefined;
      if (!doc || page?.invisibleEdit) continue;
      problems.push(`${m.name} said HIDDEN_EDIT of ${path} ("${doc.title}"), a page ${page ? "whose every colleague's edit changed what a read shows" : 'no colleague edited'}`);
    }
  }
  return problems;
}

/** Where a token is: the documents and each machine's files. */
function describe(token: string, machines: readonly MachineAtRest[], docs: readonly DumpedNode[]): string {
  const kb = docs.filter((doc) => (doc.markdown ?? '').includes(token)).map((doc) => `"${doc.title}"`);
  const files = machines.map((m) => `${m.name}: ${[...m.files].filter(([, text]) => text.includes(token)).map(([path]) => path).join(', ') || 'none'}`);
  return `(knowledge base: ${kb.join(', ') || 'none'}; ${files.join('; ')})`;
}
