import { pathOf } from './placement.js';
import type { Action, Guards, PlanInput, Refusal } from './types.js';

/**
 * Design rule 4: never infer a delete from missing knowledge. A side that was not empty before and is
 * empty now is far more likely an unmounted drive, a wrong folder or a failed checkout than a user
 * who deleted everything.
 */
export function emptySideRefusal(input: PlanInput): Refusal | undefined {
  const synced = syncedCount(input);
  if (input.guards.force || synced === 0) return undefined;
  if (input.local.size === 0 && input.mode !== 'pull') {
    return {
      code: 'EMPTY_LOCAL',
      message:
        `The local folder holds no Markdown files, but ${synced} were synced before. ` +
        'Nothing was deleted. If the folder is on a drive that is not mounted, mount it; ' +
        'if you really removed every file, run again with --force.',
    };
  }
  if (input.remote && input.remote.docs.size === 0 && input.mode !== 'push') {
    return {
      code: 'EMPTY_REMOTE',
      message:
        `The knowledge base shows no documents under the synced folder, but ${synced} were synced before. ` +
        'Nothing was deleted locally. Check workspaceId and remoteFolder in the config; ' +
        'if everything was really deleted in the knowledge base, run again with --force.',
    };
  }
  return undefined;
}

/** Documents synced before this run: the records planned and those left out as settled. */
export const syncedCount = (input: Pick<PlanInput, 'records' | 'settled'>): number => input.records.size + (input.settled?.size ?? 0);

const destructive = new Set<Action['kind']>(['delete-remote', 'trash-local']);

/** The mass-delete guard: a plan that deletes too much at once is refused whole, until --force. */
export function massDeleteRefusal(actions: readonly Action[], synced: number, guards: Guards, confirmed: ReadonlySet<string> = new Set()): Refusal | undefined {
  if (guards.force) return undefined;
  // `confirmed`: files a person named for deletion (kbsync resolve --mine), which count as that person's --force.
  const deletes = actions.filter((action) => destructive.has(action.kind) && !confirmed.has(pathOf(action))).length;
  // Deleting one document is always allowed: the ratio rule would otherwise forbid removing your only note.
  const overRatio = deletes > 1 && deletes > guards.maxDeleteRatio * synced;
  if (deletes <= guards.maxDeletes && !overRatio) return undefined;
  return {
    code: 'MASS_DELETE',
    message:
      `This run would delete ${deletes} of ${synced} synced documents, more than the guard allows ` +
      `(at most ${guards.maxDeletes}, and at most ${Math.round(guards.maxDeleteRatio * 100)}%). Nothing was done. ` +
      'If files disappeared by accident, restore them; if the deletions are intended, run again with --force ' +
      'or raise guards.maxDeletes / guards.maxDeleteRatio in the config.',
  };
}
