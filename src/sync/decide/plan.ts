import { posix } from 'node:path';
import { emptySideRefusal, massDeleteRefusal, syncedCount } from './guards.js';
import { detectMoves } from './moves.js';
import { held, holdStands, MOVE_HOLDS, WANT_OF_ID } from './held.js';
import { assignTitles, compare, fitsPlace, fitTitle, folderOf, indexUnrecordedRemote, MAX_TITLE_CHARS, pathOf, placeKey, uniqueName } from './placement.js';
import { corroborated, fittingFiles, placeOf } from './corroborate.js';
import { deletionBlocked } from './removals.js';
import { withReplacements } from './follow.js';
import { lostCreateTwins } from './lost-create.js';
import type { Action, ActionKind, DecisionKind, LocalEntry, Notice, Plan, PlanInput, PlanRelease, RecordEntry, RemoteDoc } from './types.js';
import type { DocKey } from '../../model/ids.js';
import { oneLine } from '../../printable.js';

type Side = 'unchanged' | 'changed' | 'missing';
/** `uncertain`: the listing cannot tell (our own write, or an edit possible within the same minute); a read decides. */
type RemoteSide = Side | 'uncertain';

/**
 * The planner: local state × ledger × remote state → actions. Pure and synchronous, so every
 * situation is a row in a table test. It decides; the executor acts; nothing else does either.
 */
export function plan(given: PlanInput): Plan {
  const input = withReplacements(withSharedRecords(given));
  const refusal = emptySideRefusal(input);
  if (refusal) return { actions: [], pending: [], notices: [], refusal };

  const actions: Action[] = [];
  const pending: { path: string; reason: string }[] = [];
  const canPush = input.mode !== 'pull';
  const canPull = input.mode !== 'push';
  const holdBack = (path: string, reason: string) => pending.push({ path, reason });
  const notices: Notice[] = [];

  const records = [...input.records.values()];
  const unrecorded: LocalEntry[] = [];
  for (const entry of input.local.values()) if (!input.records.has(entry.path) && !input.settled?.has(entry.path)) unrecorded.push(entry);
  const moves = detectMoves(
    records.filter((record) => !input.local.has(record.path)),
    unrecorded,
    input.renameTexts,
  );
  // An unverified entry follows a file to a new path only when its document bears the file's title.
  for (const [from, to] of moves) {
    const record = input.records.get(from);
    const local = input.local.get(to);
    if (record && local && !corroborated(input, record, local, to, false)) moves.delete(from);
  }
  const movedTo = new Set(moves.values());

  const released = new Map<string, PlanRelease['side']>();
  for (const recorded of records) {
    const to = moves.get(recorded.path);
    const local = input.local.get(to ?? recorded.path);
    const remote = input.remote?.docs.get(recorded.docKey);
    // A move a person may release is one that waits (MOVE_WAITING): the file at its new path, as it was held.
    const release = to === undefined || recorded.held?.code === 'MOVE_WAITING' ? releaseOf(input, recorded, local, remote) : undefined;
    if (release) released.set(recorded.path, release);
    // Theirs: nothing stays held, and the document is read again, so what the knowledge base holds comes into the file.
    const record: RecordEntry = release === 'theirs' ? { ...recorded, held: null, recheck: true } : recorded;
    const localSide = sideOfLocal(record, local);
    const remoteSide = input.remote ? sideOfRemote(record, remote) : undefined;

    // An open conflict (its copy still there) waits for a person: no read, no write, until it is settled. A file
    // renamed meanwhile takes its record, and the conflict, along (`to`): the document stays as it is until then.
    if (input.openConflicts?.has(record.path) && local) {
      actions.push({ kind: 'held', record, held: held('CONFLICT_OPEN'), ...(to !== undefined ? { to } : {}) });
      continue;
    }
    // Held work is free: while the file and the document are as they were when it was held, nothing is read.
    // --force decides afresh: it is how a user overrides the holds that a guard made.
    // So does a person's `kbsync resolve --mine` for this file.
    // Another kbsync writer's new version of the document is news a hold was decided without (it may say
    // exactly what the document holds): decided afresh.
    const news = input.republished?.has(record.path) === true;
    // So is a delete held for want of the id that deletes its document, once that id is known (the team's state).
    const idCame = record.nodeId !== null && record.held !== null && WANT_OF_ID.has(record.held.code);
    // A move's hold ends with the move: the file back at its record's path (as MOVE_LOSSY and MOVE_PLACEHOLDERS advise)
    // and the document in its place, the edits the hold kept out of the file come in (stood, the file went without the
    // colleague's new block that MOVE_PLACEHOLDERS asks to settle in it, until the document changed again).
    const moveUndone = to === undefined && record.held !== null && MOVE_HOLDS.has(record.held.code) && fitsPlace(input, record, record.path) === true;
    if (!input.guards.force && release !== 'mine' && !news && !idCame && !moveUndone && holdStands(record.held, local?.hash ?? '', input.remote ? (remote?.modifiedTime ?? '') : undefined)) {
      actions.push({ kind: 'held', record, held: record.held, ...(to !== undefined ? { to } : {}) });
      continue;
    }

    if (to !== undefined) {
      const movedAway = remoteSide === 'missing' ? notAgain(input, record) : undefined;
      if (movedAway !== undefined) holdBack(to, movedAway);
      else if (remoteSide === 'missing') {
        // Deleted remotely and moved locally: the move shows the file is wanted, so it is created anew.
        if (canPush) actions.push({ kind: 'recreate', record: { ...record, path: to } });
        else holdBack(to, 'moved locally and deleted in the knowledge base; a push re-creates it');
      } else if (canPush) {
        // Against where the document is now: moved in the web editor to the folder the file went to, it stays
        // (model seed 50057: a move made it anew beside itself, refused, and then a second document).
        const placed = remote ? { ...record, parentTreeNodeId: remote.parentTreeNodeId } : record;
        const samePlace = fitsPlace(input, placed, to) === true;
        // A move to another folder deletes the document (a new one is made there): one a checkout made waits like a delete.
        if (!samePlace && release !== 'mine' && moveWaits(input.deferDeletes, record.path)) actions.push({ kind: 'held', record, held: held('MOVE_WAITING'), to });
        else actions.push({ kind: 'move', record, to, samePlace });
      } else holdBack(to, `moved from ${record.path}; a push moves the document`);
      continue;
    }

    // The service cannot rename: a file that asks for another title keeps its document, unless --retitle.
    const retitled = local && canPush ? newTitle(input, record, local) : undefined;
    if (retitled !== undefined && localSide !== 'missing') {
      if (input.retitle && record.nodeId !== null && remoteSide !== 'missing') {
        actions.push({ kind: 'move', record, to: record.path, samePlace: false, title: retitled });
        continue;
      }
      notices.push({
        path: record.path,
        code: 'TITLE_KEPT',
        message:
          record.nodeId === null
            ? `its title is now "${retitled}", but the document keeps "${oneLine(record.remoteTitle)}": the service cannot rename, and ${record.origin === 'created' ? 'the id that deletes this document is known only from the unauthenticated shared state (no state key)' : 'kbsync did not create this document'}, so it cannot replace it. Rename it in the web editor.`
            : `its title is now "${retitled}", but the document keeps "${oneLine(record.remoteTitle)}": the service cannot rename. Run \`kbsync sync --retitle\` to replace it with a new document under the new title (a new URL; the old one is deleted).`,
      });
    }

    // A file that follows its document is read again at its new path when there is more to decide than the move:
    // another writer's version, or an edit made here (left for a later run, that run said the file was pulled and
    // published none of it: model seed 4001).
    const followUp = { ...(news ? { republished: true as const } : {}), ...(localSide === 'changed' ? { edited: true as const } : {}) };
    const movedRemotely = remote && local && canPull ? remoteMove(input, record, remote) : undefined;
    if (remote && movedRemotely !== undefined) {
      actions.push({ kind: 'move-local', record, to: movedRemotely, remote, ...followUp });
      continue;
    }
    // Renamed by another machine: the file takes the name the others know it by, with any edit made here since (it
    // goes with the file, as with a move made in the web editor). Kept at its old path, an edited file was published
    // there, and the other machines followed it back: a move undone (soak seed 2, an edit made while the daemon was down).
    const renamed = remote && local && canPull ? input.renamedElsewhere?.get(record.path) : undefined;
    if (remote && renamed !== undefined && !input.local.has(renamed) && !input.records.has(renamed)) {
      actions.push({ kind: 'move-local', record, to: renamed, remote, renamedElsewhere: true, ...followUp });
      continue;
    }

    // A move this machine could only record (the document stayed in its old folder), which a colleague then made
    // in the web editor: the record follows the document, and file and document sync as in any run (seed 130062:
    // the record still named the old folder, so the move was planned on every run and, forced, refused for good).
    if (local && remote && remote.parentTreeNodeId !== record.parentTreeNodeId && fitsPlace(input, { ...record, parentTreeNodeId: remote.parentTreeNodeId }, record.path) === true) {
      actions.push({ kind: 'move', record, to: record.path, samePlace: true });
      continue;
    }
    const verdict = decide(localSide, remoteSide ?? 'unchanged');
    // A deleted file whose document comes back, moved meanwhile, comes back where the document now is.
    const comesBackAt = !local && remote && canPull ? remoteMove(input, record, remote) : undefined;
    const at = comesBackAt !== undefined ? { at: comesBackAt } : {};
    switch (verdict) {
      case 'none':
        // A move an earlier run could only record (the document is still in the old folder): finish it.
        if (canPush && local && record.nodeId !== null && fitsPlace(input, record, record.path) === false) {
          actions.push({ kind: 'move', record, to: record.path, samePlace: false });
        } else if (record.shared) actions.push({ kind: 'relink', record });
        // Another machine's version that reads the same in the document (front matter, code): one read takes it in.
        else if (canPull && remote && input.republished?.has(record.path)) actions.push({ kind: 'check', record, remote });
        break;
      case 'push':
        if (canPush) actions.push({ kind: 'push', record });
        // A pull cannot send the edit, but the remote may have changed unseen: the merge reads it and keeps the edit pending.
        else if (remoteSide === 'uncertain' && remote) actions.push({ kind: 'merge', record, remote });
        else holdBack(record.path, 'changed locally; a push sends it');
        break;
      case 'check':
        if (canPull) actions.push({ kind: 'check', record, remote: remote as RemoteDoc });
        // A push leaves the re-read to a run that may pull; a file known from the shared state is paired still.
        else if (record.shared) actions.push({ kind: 'relink', record });
        break;
      case 'pull':
        if (canPull) actions.push({ kind: 'pull', record, remote: remote as RemoteDoc });
        else holdBack(record.path, 'changed in the knowledge base; a pull brings it');
        break;
      case 'merge':
        // A pull-only run still merges: the file gets the remote edits, and the local edits stay for a later push.
        // A push-only run still merges: the service gets the local edits without losing the remote ones.
        actions.push({ kind: 'merge', record, remote: remote as RemoteDoc });
        break;
      case 'delete-remote': {
        // A document kbsync may not delete needs no read to know it: held at once, and free from then on.
        const blocked = remoteSide === 'unchanged' ? deletionBlocked(record) : undefined;
        // Another writer's newer version that the document does not show (its front matter) is an edit, and an edit
        // beats a delete, as it does when the document shows it (soak seed 500: a front matter edit published in the
        // same minute as the delete here was lost with the document).
        if (news && canPull && remote) actions.push({ kind: 'restore', record, remote, ...at });
        else if (news && !canPull) holdBack(record.path, 'deleted locally but another machine published a newer version of it since; a two-way sync restores the file with it');
        else if (!canPush) holdBack(record.path, 'deleted locally; a push deletes the document');
        else if (blocked) actions.push({ kind: 'held', record, held: blocked });
        // The daemon lets a delete wait (a branch switched away and back, a file saved by delete-and-create).
        else if (input.deferDeletes && release !== 'mine' && !input.deferDeletes.due.has(record.path)) actions.push({ kind: 'held', record, held: held('DELETE_WAITING') });
        else actions.push({ kind: 'delete-remote', record, ...at });
        break;
      }
      case 'trash-local':
        if (canPull) actions.push({ kind: 'trash-local', record });
        else holdBack(record.path, 'deleted in the knowledge base; a pull moves the file to the trash');
        break;
      case 'recreate': {
        const movedAway = notAgain(input, record);
        if (movedAway !== undefined) holdBack(record.path, movedAway);
        else if (canPush) actions.push({ kind: 'recreate', record });
        else holdBack(record.path, 'edited locally but deleted in the knowledge base; a push re-creates it');
        break;
      }
      case 'restore':
        if (canPull) actions.push({ kind: 'restore', record, remote: remote as RemoteDoc, ...at });
        else holdBack(record.path, 'deleted locally but edited in the knowledge base; a pull restores it');
        break;
      case 'forget':
        actions.push({ kind: 'forget', record });
        break;
    }
  }

  placeUnrecorded(input, unrecorded.filter((entry) => !movedTo.has(entry.path)), records, actions, holdBack);

  const voidReleases = [...(input.releases?.keys() ?? [])].filter((path) => !released.has(path));
  for (const path of voidReleases) {
    holdBack(path, `\`kbsync resolve --${input.releases?.get(path)?.side ?? 'mine'}\` was given for the file and its document as they were then; one of them changed since, so it was decided afresh`);
  }
  const ordered = actions.sort((a, b) => compare(pathOf(a), pathOf(b)));
  // Deletes a person asked for by name (kbsync resolve --mine) are not the accident the guard is for.
  const confirmed = new Set([...released].filter(([, side]) => side === 'mine').map(([path]) => path));
  const deleteRefusal = massDeleteRefusal(ordered, syncedCount(input), input.guards, confirmed);
  const said = { ...(released.size > 0 ? { released } : {}), ...(voidReleases.length > 0 ? { voidReleases } : {}), ...(moves.size > 0 ? { moved: moves } : {}) };
  if (deleteRefusal) return { actions: [], pending, notices, refusal: deleteRefusal, ...said };
  return { actions: ordered, pending, notices, refusal: undefined, ...said };
}

/**
 * Why an edited file whose document is gone is not created again, when another kbsync writer replaced that document
 * by one the listing shows (PlanInput.movedAway) and the record could not follow it (decide/follow.ts): the page
 * lives on there, and a document made here would be the page twice (soak seed 712). Undefined: a deletion.
 */
function notAgain(input: PlanInput, record: RecordEntry): string | undefined {
  const page = input.movedAway?.get(record.path);
  if (page === undefined) return undefined;
  const next =
    input.mode === 'push'
      ? 'a two-way sync brings the file there with the edit'
      : `this machine has that page as a file changed here too: copy the edit into it, then delete ${record.path}`;
  return `edited here, but another kbsync machine moved its page to ${page} (a new document in place of this one's, now deleted): not created again, which would make the page twice; ${next}`;
}

/** Does the daemon keep this record's move to another folder waiting (PlanInput.deferDeletes)? */
function moveWaits(defer: PlanInput['deferDeletes'], path: string): boolean {
  if (!defer || defer.due.has(path)) return false;
  return defer.moves === 'all' || defer.moves.has(path);
}

/** The side of the release that stands for this record now: its file and (where listed) its document as the release was given for. */
function releaseOf(input: PlanInput, record: RecordEntry, local: LocalEntry | undefined, remote: RemoteDoc | undefined): PlanRelease['side'] | undefined {
  const release = input.releases?.get(record.path);
  if (!release || release.localHash !== (local?.hash ?? '')) return undefined;
  if (input.remote && release.remoteTime !== '' && (remote?.modifiedTime ?? '') !== release.remoteTime) return undefined;
  return release.side;
}

/** The two-way table's verdict on a recorded file: the action it plans, by that action's own tag, or nothing to do. */
type Verdict = Extract<ActionKind, 'check' | 'push' | 'pull' | 'merge' | 'delete-remote' | 'trash-local' | 'recreate' | 'restore' | 'forget'> | Extract<DecisionKind, 'none'>;

/**
 * The two-way table. With no remote listing the remote is taken as unchanged. Every action that writes
 * re-reads the remote first (rule 3), so an uncertain remote is planned like an unchanged one and the
 * read decides: a push becomes a merge, a delete becomes a restore, if the body did change.
 */
function decide(local: Side, remote: RemoteSide): Verdict {
  if (local === 'unchanged') return remote === 'unchanged' ? 'none' : remote === 'missing' ? 'trash-local' : remote === 'changed' ? 'pull' : 'check';
  if (local === 'changed') return remote === 'changed' ? 'merge' : remote === 'missing' ? 'recreate' : 'push';
  return remote === 'changed' ? 'restore' : remote === 'missing' ? 'forget' : 'delete-remote';
}

/**
 * A document moved to another folder in the knowledge base (same document, new parent): the local path
 * it now belongs at, when that folder is mirrored locally and the file was not moved meanwhile.
 */
function remoteMove(input: PlanInput, record: RecordEntry, remote: RemoteDoc): string | undefined {
  if (input.layout !== 'folders' || remote.parentTreeNodeId === record.parentTreeNodeId) return undefined;
  const folder = [...input.folderIds].find(([, id]) => id === remote.parentTreeNodeId)?.[0];
  if (folder === undefined) return undefined;
  const to = folder === '' ? posix.basename(record.path) : `${folder}/${posix.basename(record.path)}`;
  return input.local.has(to) || input.records.has(to) ? undefined : to;
}

/**
 * The title a changed file asks for, when it is not the one its document has (a uniquified `Title (2)` and a
 * cut `Title…` count as the same). Flat layouts title documents by path: a rename is a move there.
 */
function newTitle(input: PlanInput, record: RecordEntry, local: LocalEntry): string | undefined {
  // Only a title kbsync made from the file can drift from it; a pulled or linked document was titled by someone else.
  if (input.layout === 'flat' || local.title === undefined || record.remoteTitle === '' || (record.origin !== 'created' && record.origin !== 'create-answer-lost')) return undefined;
  const wanted = fitTitle(local.title);
  const stem = record.remoteTitle.replace(/ \(\d+\)$/, '');
  return record.remoteTitle === wanted || stem === wanted || fitTitle(local.title, MAX_TITLE_CHARS - (record.remoteTitle.length - stem.length)) === stem ? undefined : wanted;
}

/** The file's side of a record: its bytes, or what a push sends for them (an image, the dialect), changed since (status shows this too). */
export function sideOfLocal(record: Pick<RecordEntry, 'localHash'>, local: LocalEntry | undefined): Side {
  if (!local) return 'missing';
  return local.hash === record.localHash && !local.sendChanged ? 'unchanged' : 'changed';
}

function sideOfRemote(record: RecordEntry, remote: RemoteDoc | undefined): RemoteSide {
  if (!remote) return 'missing';
  if (record.recheck || record.remoteModifiedTime === '') return 'uncertain';
  return remote.modifiedTime !== record.remoteModifiedTime ? 'changed' : 'unchanged';
}

/**
 * The ledger's records, plus the shared state's entries that stand for files here (identity by path) or,
 * in a stateless push, for files the checkout no longer has (deleted or moved in the repository).
 */
function withSharedRecords(input: PlanInput): PlanInput {
  if (!input.shared || input.shared.size === 0) return input;
  const records = new Map(input.records);
  const recordedKeys = new Set([...input.records.values()].map((record) => record.docKey));
  // With no ledger at all (a fresh checkout, a lost ledger), a file at a path the state knows IS that file, with
  // that history. A machine with a ledger that lacks the path made the file itself: it is paired like any
  // file with no shared history (placeUnrecorded), so an independent creation is never taken for an edit.
  if (!input.stateless) return input;
  const fitted = input.sharedUnverified ? fittingFiles(input) : undefined;
  for (const [path, record] of input.shared) {
    if (records.has(path) || recordedKeys.has(record.docKey)) continue;
    const local = input.local.get(path);
    // An unverified entry of a file not here does not keep its document from a file here that it fits.
    if (local ? corroborated(input, record, local, path, true) : input.mode === 'push' && !fitted?.has(placeOf(input, record))) records.set(path, record);
  }
  return { ...input, records };
}

/** Local files and remote documents that the ledger does not pair yet: adopt twins, create the rest. */
function placeUnrecorded(
  input: PlanInput,
  unrecorded: readonly LocalEntry[],
  records: readonly RecordEntry[],
  actions: Action[],
  holdBack: (path: string, reason: string) => void,
): void {
  // Nothing to pair (every file recorded, nothing listed to pull): skip indexing every record's title and key,
  // which a no-op of a large tree would otherwise pay on each run.
  if (unrecorded.length === 0 && (!input.remote || input.mode === 'push')) return;
  // Documents the shared state knows belong to their own paths: never adopted by title for another file.
  // An unverified entry holds its document only where the document corroborates it (its file here, titled
  // for it): a forged one cannot orphan another file. It may still name where a document to pull goes.
  const shared = [...(input.shared?.values() ?? [])];
  const holds = (record: RecordEntry): boolean => {
    const local = input.local.get(record.path);
    return !input.sharedUnverified || (local !== undefined && corroborated(input, record, local, record.path, true));
  };
  const deleting = new Set(actions.flatMap((action) => (action.kind === 'delete-remote' ? [action.record.path] : [])));
  // Their titles are taken too, where listed: another machine's new file of the same title is that file's
  // document, not this one's (created as `Title (2)`, never met by a create that would take it for its own).
  const recordedPaths = new Set(records.map((record) => record.path));
  const othersListed = shared.filter((record) => holds(record) && !recordedPaths.has(record.path)).flatMap((record) => {
    const listed = input.remote?.docs.get(record.docKey);
    return listed ? [{ ...record, path: listed.localPath, remoteTitle: listed.title }] : [];
  });
  const titles = assignTitles(unrecorded, [...records, ...othersListed], input.layout, deleting);
  const sharedByKey = new Map(shared.filter((record) => holds(record) || fitsPlace(input, record, record.path) !== false).map((record) => [record.docKey as string, record]));
  const recordedKeys = new Set<string>([...records.map((record) => record.docKey), ...shared.filter(holds).map((record) => record.docKey)]);
  const twins = input.remote ? indexUnrecordedRemote(input.remote.docs.values(), recordedKeys, input.layout) : new Map<string, RemoteDoc>();
  const lostTwins = lostCreateTwins(input, records);
  const adopted = new Set<string>();

  // A file an interrupted pull left (exactly as written, never recorded) is never a twin or a new file:
  // - its document gone since (deleted there, state chaos seed 24): a create would bring back what a colleague
  //   deleted, so it goes to kbsync's trash (a push touches no file, so it only leaves it out);
  // - its document placed elsewhere by another writer's later record (the file renamed there since, seed 17):
  //   the document comes to the new path.
  const leftovers = new Map<DocKey, string>();
  const leftBehind = new Set<string>();
  for (const entry of unrecorded) {
    const pulled = input.interruptedPulls?.get(entry.path);
    if (pulled === undefined || !input.remote) continue;
    if (!input.remote.docs.has(pulled)) {
      leftBehind.add(entry.path);
      if (input.mode === 'push') holdBack(entry.path, "left by an interrupted pull of a document deleted in the knowledge base since: not published; a two-way sync moves it to kbsync's trash");
      else actions.push({ kind: 'trash-leftover', path: entry.path, docKey: pulled });
      continue;
    }
    const placed = input.mode === 'push' ? undefined : sharedByKey.get(pulled);
    if (placed !== undefined && placed.path !== entry.path && !input.local.has(placed.path)) {
      leftovers.set(pulled, entry.path);
      leftBehind.add(entry.path);
    }
  }

  for (const entry of unrecorded) {
    if (leftBehind.has(entry.path)) continue;
    const titled = titles.get(entry.path);
    const title = titled?.title ?? entry.path;
    // The document the shared state pairs with this path comes first (identity by path), then one of the same title.
    const shared = input.shared?.get(entry.path);
    const known = shared && corroborated(input, shared, entry, entry.path, true) ? shared : undefined;
    const listedKnown = known ? input.remote?.docs.get(known.docKey) : undefined;
    if (known && listedKnown && !adopted.has(known.docKey)) {
      adopted.add(known.docKey);
      actions.push({ kind: 'adopt', path: entry.path, remote: listedKnown, known });
      continue;
    }
    // Then the document this machine's create of it made without hearing the answer, whoever mirrored it since.
    const lost = lostTwins.get(entry.path);
    if (lost && !adopted.has(lost.docKey)) {
      adopted.add(lost.docKey);
      actions.push({ kind: 'adopt', path: entry.path, remote: lost });
      continue;
    }
    const twin = twins.get(placeKey(folderOf(entry.path, input.layout), title));
    if (twin && !adopted.has(twin.docKey)) {
      adopted.add(twin.docKey);
      actions.push({ kind: 'adopt', path: entry.path, remote: twin });
    } else if (input.mode !== 'pull') {
      const shortened = entry.title !== undefined && entry.title.length > MAX_TITLE_CHARS;
      actions.push({ kind: 'create', path: entry.path, title, ...(shortened ? { shortened } : {}), ...(titled?.afterDelete ? { afterDelete: titled.afterDelete } : {}) });
    } else holdBack(entry.path, 'new local file; a push creates its document');
  }

  if (!input.remote || input.mode === 'push') return;
  const names = new TakenNames([...input.local.keys(), ...input.records.keys(), ...(input.occupied ?? [])]);
  const unconfirmed = new Set((input.unconfirmedCreates ?? []).map((create) => placeKey(create.parentId, create.title)));
  const inRecords = new Set<string>(records.map((record) => record.docKey));
  for (const doc of [...input.remote.docs.values()].sort((a, b) => compare(a.localPath, b.localPath))) {
    if (inRecords.has(doc.docKey) || adopted.has(doc.docKey)) continue;
    if (unconfirmed.has(placeKey(doc.parentTreeNodeId, doc.title))) continue;
    const known = sharedByKey.get(doc.docKey);
    const leftover = leftovers.get(doc.docKey);
    actions.push({ kind: 'new-local', remote: doc, path: names.claim(known?.path ?? doc.localPath), ...(known ? { known } : {}), ...(leftover !== undefined ? { leftover } : {}) });
  }
  for (const folder of input.remote.folders) {
    if (folder.localPath === '' || input.localFolders.has(folder.localPath) || input.recordedFolders.has(folder.localPath)) continue;
    actions.push({ kind: 'new-local-folder', folder });
  }
}

/** File names in use per folder, compared case-insensitively because macOS and Windows file systems do. */
class TakenNames {
  readonly #byFolder = new Map<string, Set<string>>();

  constructor(paths: Iterable<string>) {
    for (const path of paths) this.#add(path);
  }

  /** `a/Notes.md` → `a/Notes (2).md` while the name is taken by another file; the result is then taken. */
  claim(wanted: string): string {
    const dir = posix.dirname(wanted);
    const taken = this.#byFolder.get(lower(dir)) ?? new Set<string>();
    const name = uniqueName(posix.basename(wanted, '.md'), taken, lower);
    const path = dir === '.' ? `${name}.md` : `${dir}/${name}.md`;
    this.#add(path);
    return path;
  }

  #add(path: string): void {
    const dir = lower(posix.dirname(path));
    let set = this.#byFolder.get(dir);
    if (!set) this.#byFolder.set(dir, (set = new Set()));
    set.add(lower(posix.basename(path, '.md')));
  }
}

const lower = (text: string): string => text.toLowerCase();
