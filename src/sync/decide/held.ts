import { shellQuote } from '../../shell/quote.js';

/**
 * Why kbsync leaves a file or document as it is until something changes. Each reason is a closed code
 * with one message that says what happened and what to do; the run, every preview and the daemon print
 * the same words, and a held item costs no call until its file or document changes (design rule 10).
 */
export const HELD_REASONS = {
  EMPTIED:
    'it is empty now but was not at the last sync (an editor may be in the middle of saving it), so its document was left as it is. ' +
    'If you emptied it on purpose, run `kbsync resolve --mine <file>` to publish the empty file; `kbsync resolve --theirs <file>` puts its last synced text back.',
  REMOTE_EDITED:
    'it changed in the knowledge base since the last sync, so a push alone would overwrite that edit. ' +
    'Run `kbsync sync` to merge both sides, or `kbsync sync --push --force` to replace it (its body is backed up first).',
  PLACEHOLDERS:
    'not pushed: the file still holds kbsync placeholder comments for content the service does not expose (code, images, tables), ' +
    'and overwriting the document would destroy that content. Edit this document in the web editor (then `kbsync resolve --theirs <file>` ' +
    'takes its text back into the file), or delete the placeholder comments from the file (accepting that the hidden content is replaced).',
  NOT_CREATED:
    'deleted locally, but kbsync holds no id that deletes this document (it was linked to the file or pulled, so someone else made it, ' +
    'or a kbsync run made it and was stopped before it recorded the id), and the service deletes a document only by the id returned when it was created. ' +
    'It is yours to delete: delete it in the web editor (<url>) and kbsync forgets it; until then it stays, and no run fails for it. ' +
    '`kbsync resolve --theirs <file>` gets the file back.',
  CREATE_ANSWER_LOST:
    'deleted locally, but the answer to the request that created this document was lost, and the service deletes a document ' +
    'only by the id that answer carried. It is yours to delete: delete it in the web editor (<url>) and kbsync forgets it; until then it ' +
    'stays, and no run fails for it. `kbsync resolve --theirs <file>` gets the file back.',
  ID_UNVERIFIED:
    "deleted locally, but the id that deletes this document is known only from the shared state, and this machine has no state key " +
    'to verify it (anyone who can edit the workspace could have written it), so kbsync does not delete on its word. Set the team\'s key ' +
    '(KBSYNC_STATE_KEY or state.key; see Remote state in the README), or delete the document in the web editor (kbsync then forgets it), or run `kbsync resolve --theirs <file>` to get the file back.',
  DELETE_EDITED:
    'deleted locally but edited in the knowledge base since; a two-way sync (`kbsync sync`) restores the file with that edit.',
  DELETE_LOSSY:
    'deleted locally, but its document holds edits made in the web editor that kbsync cannot read back (inside code, a table, ' +
    'formatting), so the file never showed them and the body backed up before a delete would not hold them either. Delete it in the ' +
    'web editor (kbsync then forgets it), or run `kbsync sync --force` to delete it anyway; `kbsync resolve --theirs <file>` gets the file back.',
  TRASH_EDITED: 'deleted in the knowledge base but edited locally; a push (`kbsync sync`) creates it again.',
  MOVE_EDITED:
    'moved locally, but its document was edited in the knowledge base since, and a push alone would lose that edit when the old ' +
    'document is deleted. Run a two-way `kbsync sync` to merge it first.',
  MOVE_LOSSY:
    'moved locally, but its document holds edits made in the web editor that kbsync cannot read back, and the service cannot move a ' +
    'document: a move makes it anew from the file, which would lose those edits. Move the file back, or run `kbsync sync --force` to ' +
    'move it anyway (the old document is backed up first).',
  MOVE_PLACEHOLDERS:
    'moved locally, but its page holds blocks the service does not show (code, images, tables): the file\'s kbsync placeholder comments ' +
    'stand for them, or its document gained them since the last sync. The service cannot move a document: a move makes a new one from ' +
    'the file and deletes the old one, and no new document can take those blocks, so it would stay empty, the page in your files alone. ' +
    'Nothing was changed, even with --force. Move the file back, or, to move it all the same, delete the placeholder comments from the file ' +
    '(accepting that those blocks go with the old document) and run `kbsync sync --force`; if the file holds none, move it back and sync ' +
    'first: that brings the new blocks in as placeholders.',
  MOVE_JUST_EDITED:
    'moved locally, but its document changed in the last minute or two where reads cannot show (inside code, a table, an image): ' +
    "another kbsync machine's write, whose record in the shared state is on its way, or someone's edit in the web editor, which cannot be told apart yet. " +
    'The service cannot move a document: a move makes it anew from the file, which would lose such an edit, so nothing was changed. Sync again in a minute or two: ' +
    "that run moves it (with the other machine's version merged in), or holds it (MOVE_LOSSY) for an edit made in the web editor; `kbsync sync --force` moves it now (the old document is backed up first).",
  JUST_EDITED:
    'edited locally, but its document changed in the last minute or two where reads cannot show (inside code, a table, an image): ' +
    "another kbsync machine's write, whose record in the shared state is on its way, or someone's edit in the web editor, which cannot be told apart yet. " +
    "Judged now, that machine's write would be taken for an edit nobody made. Nothing was sent, and the file keeps your edit; sync again in a minute or two " +
    "(kbsync watch does): that run merges the other machine's version and sends the file, or, for an edit made in the web editor, says so, keeps it and sends " +
    'only what an append can; `kbsync sync --force` sends the file now, over whatever the document holds (its body is backed up first).',
  HIDDEN_EDIT:
    'someone edited this document in a part the service does not show (inside a code block, a table or an image): its time moved ' +
    'while every block it shows stayed the same. Overwriting it from the file would silently undo that edit, so only text added at the end of the last paragraph (an append) is sent. ' +
    'Merge your change in the web editor, then run `kbsync resolve --theirs <file>`; or run `kbsync resolve --mine <file>` to replace it with the file (its body is backed up first).',
  FLATTEN:
    'not pushed: the document holds more than kbsync can read back. It was made in the web editor (or cloned without kept source), or edited ' +
    'there since kbsync last wrote it where a read cannot show all of the page (code, a table, an image), or merge.webEdits asks to hold ' +
    'such edits; the service shows kbsync only plain text, so overwriting it from the file would remove its links, ' +
    'bold and italic text, inline code and whatever else that edit added. Text added at the end of the last paragraph (an append) is still sent. ' +
    'Make the change in the web editor (then `kbsync resolve --theirs <file>`), or run `kbsync resolve --mine <file>` to publish the file as it is (the document is backed up first).',
  JUST_CREATED:
    'this folder has no record of it, and a document of its title was made in the knowledge base in the last minute or two and is still empty: ' +
    'its maker (another kbsync, a colleague) may be sending its first version right now, and the service cannot write only if nothing did, ' +
    'so kbsync did not put the file over it. Nothing was written; sync again in a minute: that run merges the file with what the document then holds ' +
    '(a conflict copy if they clash), or fills it if it is still empty.',
  BODY_COMING:
    'its document is the new one another kbsync machine made for this page (a move: a new document, then its first body, then the old one deleted), ' +
    'and it is still empty: that machine may be sending its version right now, so kbsync did not pull the empty document over the file, and the page is ' +
    'in the file alone meanwhile. Nothing was written; sync again in a minute or two: that run merges the file with what the document then holds, ' +
    'or, once its maker has had two minutes, fills it with the file.',
  VANISHED: 'the file disappeared during the sync; the next run sees the deletion.',
  DELETE_WAITING:
    'deleted here; kbsync watch deletes its document once the file has stayed gone for watch.deleteDelayMinutes (after a git checkout, ' +
    'once the branch has stayed for watch.checkoutDelayMinutes), and keeps it, with its URL, if the file comes back. ' +
    '`kbsync resolve --mine <file>` deletes it now; `kbsync resolve --theirs <file>` brings the file back.',
  MOVE_WAITING:
    'moved to another folder by a git checkout. The service cannot move a document: a move makes a new one in the new folder (a new URL) ' +
    'and deletes this one, so kbsync watch moves it once the branch has stayed for watch.checkoutDelayMinutes, and keeps it, with its URL, if ' +
    'the file moves back first (the branch switched back). `kbsync resolve --mine <file>` moves it now.',
  CONFLICT_OPEN:
    "both sides changed the same part of this document differently: your version is in the file, the knowledge base's in the conflict copy beside it, " +
    'and the knowledge base keeps its version until you settle it: run `kbsync resolve <file>` (or merge by hand and delete the copy).',
} as const;

export type HeldCode = keyof typeof HELD_REASONS;

export type Held = { readonly code: HeldCode; readonly message: string };

export const held = (code: HeldCode): Held => ({ code, message: HELD_REASONS[code] });

/**
 * Holds that wait for nothing kbsync can do: a document only a person can delete (the service deletes by the id
 * its create returned, which kbsync does not hold). They are said, with the document's URL, but fail no run: a
 * pipeline stays green over a document someone can delete in a minute, and kbsync forgets it once it is gone.
 */
export const LEFT_TO_A_PERSON: ReadonlySet<string> = new Set<HeldCode>(['NOT_CREATED', 'CREATE_ANSWER_LOST']);

/** Holds of a delete for want of the id that deletes the document: they end once the id is known (learnt from the team's state). */
export const WANT_OF_ID: ReadonlySet<string> = new Set<HeldCode>(['NOT_CREATED', 'CREATE_ANSWER_LOST', 'ID_UNVERIFIED']);

/** The holds of a move itself (the file at another path than its record's), which stand only while that move is asked for. */
export const MOVE_HOLDS: ReadonlySet<string> = new Set<HeldCode>(['MOVE_EDITED', 'MOVE_LOSSY', 'MOVE_PLACEHOLDERS', 'MOVE_JUST_EDITED']);

/**
 * A hold's message for one file: the commands it names are written for that file, quoted for the shell, and
 * the document it names is its URL (left out where it is not known).
 */
export const heldMessage = (hold: Pick<Held, 'message'>, path: string, url?: string): string =>
  hold.message.replaceAll('<file>', shellQuote(path)).replaceAll(url ? '<url>' : ' (<url>)', url ?? '');

/**
 * What a hold was decided on: the file's hash ('' when it is gone) and the document's listed
 * modifiedTime ('' when unknown). While both are the same, the decision is the same, so it is not
 * taken again (no read) and not said again.
 */
export type HeldState = Held & { readonly localHash: string; readonly remoteModifiedTime: string };

/** Does the hold still stand for what this run observes? A side this run did not observe (no listing) is taken as unchanged. */
export function holdStands(state: HeldState | null, localHash: string, remoteModifiedTime: string | undefined): state is HeldState {
  // An open conflict stands exactly while its copy does (the plan checks that), not while the file is untouched;
  // a waiting delete or move while the daemon says it waits.
  if (!state || state.code === 'CONFLICT_OPEN' || state.code === 'DELETE_WAITING' || state.code === 'MOVE_WAITING') return false;
  // A wait for another machine's first body ends with time as well as with a change: a run that lists decides it
  // afresh (its end is a merge, or the file filling the document); one that lists nothing has nothing to end it.
  if (state.code === 'BODY_COMING' && remoteModifiedTime !== undefined) return false;
  // A push alone held for a remote edit it may not take in: the run that lists (two-way, pull) is the one the hold
  // asks for, and merges, whether or not the document's time moved since (another branch a write overtook, merged in
  // from the shared state alone, moves none: model seed 7337).
  if (state.code === 'REMOTE_EDITED' && remoteModifiedTime !== undefined) return false;
  return state.localHash === localHash && (remoteModifiedTime === undefined || state.remoteModifiedTime === remoteModifiedTime);
}
