import { join } from 'node:path';
import { InputError } from '../../errors.js';
import type { DocumentRecord, Ledger } from '../../ledger/index.js';
import { backupText, hashText, lstatOrNull, readTextFile, statFingerprint, writeFileAtomic } from '../../local/index.js';
import { HELD_REASONS, heldMessage, type HeldCode } from '../decide/held.js';

export type Side = 'mine' | 'theirs';

/**
 * Which holds a person may release, and to which side. `mine` publishes the file as it is (the decision is
 * taken as --force would take it, for that file alone); `theirs` puts the file back to the text last synced,
 * so the next run takes the knowledge base's version. A hold that neither can end says why instead.
 */
const RELEASES: Readonly<Record<Exclude<HeldCode, 'CONFLICT_OPEN'>, Readonly<Record<Side, true | string>>>> = {
  EMPTIED: { mine: true, theirs: true },
  REMOTE_EDITED: { mine: true, theirs: true },
  HIDDEN_EDIT: { mine: true, theirs: true },
  FLATTEN: { mine: true, theirs: true },
  DELETE_WAITING: { mine: true, theirs: true },
  MOVE_WAITING: { mine: true, theirs: 'move the file back to where it was: its document then stays, with its URL' },
  PLACEHOLDERS: {
    mine: 'the file still holds placeholder comments for content the service does not show, and publishing it would destroy that content: delete the placeholders from the file first (accepting that the hidden content is replaced)',
    theirs: true,
  },
  NOT_CREATED: { mine: 'the service deletes a document only by the id returned when it was created, which kbsync does not have: delete it in the web editor', theirs: true },
  ID_UNVERIFIED: {
    mine: "the id that deletes its document is known only from the shared state, unverified without the team's state key: set the key (KBSYNC_STATE_KEY or state.key), or delete it in the web editor",
    theirs: true,
  },
  MOVE_LOSSY: {
    mine: 'its document holds web-editor edits a move would lose (the service cannot move, so a move makes it anew): run `kbsync sync --force` to move it anyway, its body backed up first',
    theirs: 'move the file back to where it was',
  },
  MOVE_PLACEHOLDERS: {
    mine: 'no new document can take the blocks its placeholder comments stand for (the service cannot move, so a move makes it anew): delete them from the file first (accepting that those blocks go with the old document), then run `kbsync sync --force`',
    theirs: 'move the file back to where it was',
  },
  MOVE_JUST_EDITED: {
    mine: 'sync again in a minute or two: that run moves it, or says why it cannot; `kbsync sync --force` moves it now, its old body backed up first',
    theirs: 'move the file back to where it was',
  },
  JUST_EDITED: {
    mine: 'sync again in a minute or two: that run sends the file, or says why it cannot; `kbsync sync --force` sends it now, the document backed up first',
    theirs: 'sync again in a minute or two: that run merges the file with what its document then holds',
  },
  CREATE_ANSWER_LOST: { mine: 'the answer that carried the id the service deletes a document by was lost: delete it in the web editor', theirs: true },
  DELETE_EDITED: { mine: 'its document was edited since: run a two-way `kbsync sync`, which restores the file with that edit', theirs: true },
  DELETE_LOSSY: { mine: 'its document holds web-editor edits kbsync cannot read: run `kbsync sync --force` to delete it anyway, or delete it in the web editor', theirs: true },
  TRASH_EDITED: { mine: 'a push (`kbsync sync`) creates it again', theirs: 'a push (`kbsync sync`) creates it again' },
  MOVE_EDITED: { mine: 'run a two-way `kbsync sync` to merge the edit first', theirs: 'run a two-way `kbsync sync` to merge the edit first' },
  JUST_CREATED: { mine: 'sync again in a minute: that run merges the file with what its document then holds', theirs: 'sync again in a minute: that run merges the file with what its document then holds' },
  BODY_COMING: { mine: 'sync again in a minute or two: that run merges the file with what its document then holds, or fills it', theirs: 'sync again in a minute or two: that run merges the file with what its document then holds, or fills it' },
  VANISHED: { mine: 'the next run sees the deletion', theirs: 'the next run sees the deletion' },
};

/** The hold a record stands under, for a person to release: its code, or HIDDEN_EDIT while such an edit is remembered. */
export function standingHold(record: Pick<DocumentRecord, 'heldCode' | 'hiddenEdit'>): Exclude<HeldCode, 'CONFLICT_OPEN'> | undefined {
  const code = record.heldCode;
  if (code !== null && code !== 'CONFLICT_OPEN' && code in RELEASES) return code as Exclude<HeldCode, 'CONFLICT_OPEN'>;
  return record.hiddenEdit !== null ? 'HIDDEN_EDIT' : undefined;
}

export type Released = { readonly path: string; readonly side: Side; readonly code: HeldCode; /** `theirs`: the file was written back to the text last synced. */ readonly rewrote: boolean };

/**
 * Records a person's answer to the hold on `path` (ledger `releases`), for the next run (the daemon's next
 * cycle, or the next `kbsync sync`) to carry out while the file and the document are still what it was given
 * for. `theirs` first writes the text last synced back into the file (the file as it was is backed up). Works
 * beside a running daemon: the ledger may be open without its lock, and the file is written atomically.
 */
export async function releaseHold(deps: { readonly ledger: Ledger; readonly root: string; readonly stateDir: string }, path: string, side: Side, now = new Date()): Promise<Released> {
  const record = deps.ledger.documents.get(path);
  const code = record ? standingHold(record) : undefined;
  if (!record || code === undefined) {
    throw new InputError('RESOLVE_NOTHING_OPEN', `${path} has no open conflict and nothing held.`, { hint: 'Run `kbsync resolve` without a file to list what waits for you.' });
  }
  const allowed = RELEASES[code][side];
  if (allowed !== true) {
    throw new InputError('RESOLVE_CANNOT_RELEASE', `${path} is held (${code}), and --${side} cannot end that hold: ${allowed}. Nothing was changed.`, {
      hint: `What kbsync said about it: ${heldMessage({ message: HELD_REASONS[code] }, path)}`,
    });
  }
  const fileAbs = join(deps.root, path);
  const before = await lstatOrNull(fileAbs);
  const file = before ? await readTextFile(fileAbs, { displayPath: path }) : undefined;
  // A waiting move's file is at its new path: the release is for it as it was when held there.
  let localHash = code === 'MOVE_WAITING' ? (record.heldLocalHash ?? '') : file ? hashText(file.text) : '';
  let rewrote = false;
  if (side === 'theirs') {
    if (file) await backupText(deps.stateDir, 'local', path, file.text, { now });
    if (file?.text !== record.baseMarkdown) {
      await writeFileAtomic(deps.root, path, record.baseMarkdown, { ...(file ? { eol: file.eol, bom: file.bom } : {}), expect: before ? statFingerprint(before) : 'absent' });
      rewrote = true;
    }
    localHash = hashText(record.baseMarkdown);
  }
  // The document as the hold was decided on: if it changes before the run, the run decides afresh.
  deps.ledger.releases.put({ path, side, localHash, remoteTime: record.heldRemoteTime ?? record.remoteModifiedTime, requestedAt: now.getTime() });
  return { path, side, code, rewrote };
}
