import type { SentImage } from '../images/types.js';
import { urlIdProblem } from '../model/ids.js';

/**
 * The records of kbsync's shared state, and the check every record read from the knowledge base passes
 * before anything uses it. A record is input, not authority (anyone who can edit the workspace can write
 * one), so the check is strict: a path is one that kbsync could have synced (relative, no hidden or
 * dependency folder, no `..`), an id is a plain opaque id, a URL is http(s) and cannot break out of a
 * Markdown link, and every list and string has a size limit. A record that fails is dropped and counted.
 * Fields a record does not know are kept (a newer kbsync may add optional ones).
 */

/** One synced file, as the last run that synced it saw it. */
export type DocRecord = {
  readonly t: 'doc';
  /** The file's path, relative to the synced root. */
  readonly p: string;
  /** The document's docKey (also its node id in the tree). */
  readonly k: string;
  /** The creation nodeId, which alone deletes the document and manages its members; null when unknown. */
  readonly n: string | null;
  /** sha256 of the file text last synced (the source kept in the sources documents); '' when none was kept yet. */
  readonly h: string;
  /** What the document's blocks said right after that sync (kbsync's blocks hash); '' when not known yet. */
  readonly rb: string;
  /** The document's modifiedTime as last listed ('' when not listed since kbsync wrote it). */
  readonly m: string;
  /** 1: `m`'s minute was not over when it was taken, so an edit later in that minute may not show in it: read before trusting it. */
  readonly r?: 1;
  /** How the document came to be linked (see the ledger's origin). */
  readonly o: 'created' | 'create-answer-lost' | 'linked' | 'pulled';
  /** Members kbsync applied from front matter. */
  readonly mem?: readonly { readonly userId: string; readonly role: string }[];
  /** The images the document was last sent with (path or diagram language, content key, URL): a changed image is sent again. */
  readonly im?: readonly SharedImage[];
  /**
   * 1: the document holds more than this source says (a colleague's edit taken in from the service's plain
   * reading): another machine must not take the source for the document's exact Markdown.
   */
  readonly l?: 1;
  /**
   * 1, with `l`: all the document holds beyond this source is the formatting a colleague gave words they wrote in
   * the web editor, on a page a read shows whole (config merge.webEdits decides whether that holds an overwrite).
   * A kbsync that does not know it reads `l` alone, and holds.
   */
  readonly f?: 1;
  /**
   * With `l`, from a kbsync that tells them apart: 1, what the document holds beyond this source is an edit reads
   * cannot show (a colleague's inside code, a table or an image: someone found one, HIDDEN_EDIT); 0, it is only
   * what a visible edit taken in as plain text may carry along on a page reads cannot show whole (its writer said
   * nothing, and holds its next overwrite: FLATTEN). A record without it (a kbsync from before it) cannot tell.
   */
  readonly hd?: 0 | 1;
  /** The service's clock (ms) when that writer agreed on this version: orders versions of one file, whatever order they are published in. */
  readonly a?: number;
  /**
   * The `h` of the version this one was made from, when its writer knew the document to hold exactly that one as it
   * read it (its own last version, or another writer's it took in; ledger DocumentBody.builtOn). The service has no
   * conditional write: two versions made from the same one by two writers, neither knowing the other (a write decided
   * on it landing after another machine pulled a colleague's save into it), are each a branch of it, and whoever sees
   * both merges them against it (state.ts `forks`, decide/body.ts). A kbsync that does not know it ignores it.
   */
  readonly b?: string;
  /**
   * 1: the front matter of `h` is what this writer's file had before it took in a change of the document from a
   * plain reading, no writer's record of it known yet. It says nothing of that writer's front matter: an exact
   * record of the very blocks read (`rb`) says more, whichever came first (remote-state/state.ts, decide/body.ts).
   */
  readonly hc?: 1;
  /**
   * 1: the body of `h` is this writer's Markdown of a change it took in from the service's plain reading, nothing of it
   * written since: the layout is this writer's, not the source's. The exact record of that change's own writer (no
   * `l`, no `pr`), of the very blocks (`rb`) and made from the same version (`b`), says more, whichever came first: its
   * text is the source (remote-state/state.ts, decide/body.ts). A kbsync that does not know it ignores it.
   */
  readonly pr?: 1;
  /**
   * 1: this writer chose the path from the document's title, pulling it as new with no writer's record of it known
   * (another machine had just made it, and its record had not come). The path another writer's record without it
   * gives the document (its creator's) stands over this one, whichever was published first: the fold keeps it,
   * and this writer follows it (remote-state/state.ts, sync/observe/shared-entries.ts).
   */
  readonly nt?: 1;
  /**
   * The document this one was made to replace (the service cannot move: a move makes a new document and
   * deletes the old; a file edited here while deleted there is created again). Another machine whose file
   * is still paired with that one follows it here instead of making a third document.
   */
  readonly rp?: string;
};

/**
 * Written by a push without a ledger (a CI job) right before it overwrites or appends to a document: the file
 * text `h` (kept in the sources) is what the document will hold exactly, once the write lands. A job killed
 * after the write and before its `doc` record leaves only this, and the ledger its intent was in is thrown
 * away with the checkout: the next run, finding the document reads as that text, takes it for that writer's
 * exact version instead of a colleague's plain-text edit (which would hold every later push, FLATTEN).
 * `a`: the service's clock (ms) when it was announced; the write comes after.
 */
export type WriteRecord = { readonly t: 'write'; readonly p: string; readonly k: string; readonly h: string; readonly a: number };

/** One image of a document, as every machine may check it (no stat: that is one machine's). */
export type SharedImage = Pick<SentImage, 'p' | 'h' | 'u' | 'd'>;

/** An image uploaded once, for every machine: its content key and its URL. */
export type ImageRecord = { readonly t: 'img'; readonly k: string; readonly u: string };

/** A file's record ends: deleted, or moved to another path (whose own record follows). */
export type GoneRecord = {
  readonly t: 'gone';
  readonly p: string;
  readonly k: string;
  /**
   * Written by the machine that deleted the document: the version (the `h` of its record) its file was deleted
   * holding, all that writer knew of it. The service has no conditional delete: another machine's write can land
   * after that writer's last look and before its delete, and goes with the document. That machine's version made from
   * this one is such an edit, and makes the page again (an edit beats a delete: sync/decide/removals.ts). Absent: a
   * move, a trash, a forget, or a kbsync from before it (a delete then ends every file as last synced, as it did).
   */
  readonly h?: string;
};

/** A folder kbsync created (or found) for a local folder. */
export type FolderRecord = { readonly t: 'dir'; readonly p: string; readonly tn: string; readonly n: string | null };

/** A state document's own creation ids: a compaction may delete it once it is retired. */
export type JournalRecord = { readonly t: 'journal'; readonly k: string; readonly n: string };

/**
 * A compaction copied everything the listed state documents said into newer ones: they are deleted once
 * the grace period is over (after whatever was appended to them meanwhile is copied on too).
 */
export type RetireRecord = { readonly t: 'retire'; readonly docs: readonly string[] };

/**
 * Where a sources document's texts are: the hashes whose chunks it holds, so a run that needs a few
 * sources reads only the documents that have them.
 */
export type SourcesRecord = { readonly t: 'src'; readonly d: string; readonly h: readonly string[] };

/** Written by kbsync before compactions retired documents ("documents numbered below are superseded"): read, never obeyed. */
export type ResetRecord = { readonly t: 'reset'; readonly family: 'state' | 'sources'; readonly below: number };

/**
 * What every machine must read the synced folder with alike, published by the team's first run that writes
 * the state and checked by every run (sync/state/team.ts): whether the state is signed, and by which key
 * (its fingerprint, never the key), and the settings that change what a push sends for the same bytes. The
 * latest record wins; a setting it does not name is not decided yet (each machine's own, until one publishes it).
 */
export type TeamRecord = {
  readonly t: 'team';
  /** The fingerprint of the key the state is signed with (token.ts, keyFingerprint); null: it is not signed. */
  readonly key: string | null;
  /** Config `layout`. */
  readonly layout?: 'folders' | 'flat';
  /** Config `markdown.dialect` as read: `obsidian` (set, or a vault's settings folder found), `commonmark` (set). */
  readonly dialect?: 'obsidian' | 'commonmark';
  /** Config `links`. */
  readonly links?: boolean;
  /** Config `site.basePath`. */
  readonly base?: string;
  /** Config `merge.webEdits`: what a colleague's web-editor edit leaves a push free to write over. */
  readonly webEdits?: 'merge' | 'hold-words' | 'strict';
  /**
   * 1: every record of this state is bound to its synced folder (token.ts): tokens signed for the workspace
   * alone, as kbsync signed before, are no longer read here (a copy of another folder's records among them).
   */
  readonly b?: 1;
};

export type StateRecord = DocRecord | WriteRecord | GoneRecord | FolderRecord | JournalRecord | RetireRecord | ImageRecord | SourcesRecord | ResetRecord | TeamRecord;

/** Longest path, id, URL and list a record may hold: generous for real use, small enough to bound a hostile state. */
const LIMITS = { path: 1024, id: 128, url: 2048, members: 200, images: 500, docs: 10_000, hashes: 5_000 } as const;

const ID = /^[A-Za-z0-9_.:=+-]+$/;
const HASH = /^[0-9a-f]{64}$/;
const IMAGE_KEY = /^(sha256|diagram):[0-9a-f]{64}$|^url:/;
const ORIGINS: ReadonlySet<string> = new Set(['created', 'create-answer-lost', 'linked', 'pulled']);
/** Folders a synced path never goes through, whatever its spelling. */
const NEVER = new Set(['node_modules']);
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const isString = (value: unknown): value is string => typeof value === 'string';
/** An id as kbsync writes one: short, of plain characters, and never a dot segment (model/ids.ts: it goes into URLs). */
export const isId = (value: unknown): value is string => isString(value) && value.length > 0 && value.length <= LIMITS.id && ID.test(value) && urlIdProblem(value) === undefined;
const isNullableId = (value: unknown): boolean => value === null || isId(value);
const isHash = (value: unknown): boolean => isString(value) && (value === '' || HASH.test(value));
const isShort = (value: unknown, max: number = LIMITS.id): value is string => isString(value) && value.length <= max && !CONTROL.test(value);

/**
 * A relative path kbsync could have synced: NFC, no empty, `.` or `..` segment, no segment starting with a
 * dot (hidden folders, `.git`, kbsync's own `.kbsync`), no `node_modules`, no backslash or control character.
 */
function isSyncablePath(value: unknown): value is string {
  if (!isString(value) || value === '' || value.length > LIMITS.path || CONTROL.test(value) || value.includes('\\')) return false;
  if (value.normalize('NFC') !== value) return false;
  return value.split('/').every((segment) => segment !== '' && !segment.startsWith('.') && !NEVER.has(segment.toLowerCase()));
}

const isDocPath = (value: unknown): value is string => isSyncablePath(value) && /\.md$/i.test(value);

/**
 * An http(s) URL that reads as itself inside a Markdown link or image: no whitespace, quotes, brackets,
 * parentheses or backslashes (each could end the destination and start something else).
 */
function isSafeUrl(value: unknown): value is string {
  if (!isString(value) || value.length > LIMITS.url || /[\s"'<>()[\]\\`]/.test(value) || CONTROL.test(value)) return false;
  if (!/^https?:\/\//i.test(value)) return false;
  return URL.canParse(value);
}

const isList = (value: unknown, max: number): value is unknown[] => Array.isArray(value) && value.length <= max;

function isImage(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const image = value as Record<string, unknown>;
  // A diagram's p is its language; an image's, the file it was read from (a path kbsync could sync).
  const p = image['d'] === 1 ? isShort(image['p']) && isId(image['p']) : isSyncablePath(image['p']);
  return p && isShort(image['h'], LIMITS.url) && (image['u'] === '' || isSafeUrl(image['u'])) && (image['d'] === undefined || image['d'] === 1);
}

const isMember = (value: unknown): boolean => typeof value === 'object' && value !== null && isId((value as Record<string, unknown>)['userId']) && isId((value as Record<string, unknown>)['role']);

/** The record, if `value` is one kbsync may use; undefined when anything in it is out of bounds. */
export function checkRecord(value: unknown): StateRecord | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const r = value as Record<string, unknown>;
  return VALID[String(r['t'])]?.(r) === true ? (value as StateRecord) : undefined;
}

const VALID: Readonly<Record<string, (r: Record<string, unknown>) => boolean>> = {
  doc: (r) =>
    isDocPath(r['p']) &&
    isId(r['k']) &&
    isNullableId(r['n']) &&
    isHash(r['h']) &&
    isHash(r['rb']) &&
    isShort(r['m'], 40) &&
    (r['r'] === undefined || r['r'] === 1) &&
    (r['l'] === undefined || r['l'] === 1) &&
    (r['f'] === undefined || (r['f'] === 1 && r['l'] === 1)) &&
    (r['hd'] === undefined || (r['l'] === 1 && (r['hd'] === 0 || (r['hd'] === 1 && r['f'] === undefined)))) &&
    (r['a'] === undefined || (Number.isSafeInteger(r['a']) && (r['a'] as number) >= 0)) &&
    (r['b'] === undefined || (isString(r['b']) && HASH.test(r['b']))) &&
    (r['hc'] === undefined || r['hc'] === 1) &&
    (r['pr'] === undefined || r['pr'] === 1) &&
    (r['nt'] === undefined || r['nt'] === 1) &&
    (r['rp'] === undefined || (isId(r['rp']) && r['rp'] !== r['k'])) &&
    ORIGINS.has(String(r['o'])) &&
    (r['mem'] === undefined || (isList(r['mem'], LIMITS.members) && r['mem'].every(isMember))) &&
    (r['im'] === undefined || (isList(r['im'], LIMITS.images) && r['im'].every(isImage))),
  write: (r) => isDocPath(r['p']) && isId(r['k']) && isString(r['h']) && HASH.test(r['h']) && Number.isSafeInteger(r['a']) && (r['a'] as number) >= 0,
  img: (r) => isShort(r['k'], LIMITS.url) && IMAGE_KEY.test(r['k']) && isSafeUrl(r['u']),
  gone: (r) => isDocPath(r['p']) && isId(r['k']) && (r['h'] === undefined || (isString(r['h']) && HASH.test(r['h']))),
  dir: (r) => isSyncablePath(r['p']) && isId(r['tn']) && isNullableId(r['n']),
  journal: (r) => isId(r['k']) && isId(r['n']),
  retire: (r) => isList(r['docs'], LIMITS.docs) && r['docs'].every(isId),
  reset: (r) => (r['family'] === 'state' || r['family'] === 'sources') && Number.isInteger(r['below']),
  src: (r) => isId(r['d']) && isList(r['h'], LIMITS.hashes) && r['h'].every((h) => isString(h) && HASH.test(h)),
  team: (r) =>
    (r['key'] === null || (isString(r['key']) && /^[0-9a-f]{16}$/.test(r['key']))) &&
    (r['layout'] === undefined || r['layout'] === 'folders' || r['layout'] === 'flat') &&
    (r['dialect'] === undefined || r['dialect'] === 'obsidian' || r['dialect'] === 'commonmark') &&
    (r['links'] === undefined || typeof r['links'] === 'boolean') &&
    (r['base'] === undefined || (isShort(r['base'], 200) && /^\/[^?#\s]*$/.test(r['base']))) &&
    (r['webEdits'] === undefined || r['webEdits'] === 'merge' || r['webEdits'] === 'hold-words' || r['webEdits'] === 'strict') &&
    (r['b'] === undefined || r['b'] === 1),
};
