import type { ErrorCode } from '../../codes.js';
import { KbsyncError, messageOf } from '../../errors.js';
import { createLimit } from '../../local/limit.js';
import { assess, plannedKind, type AssessIO, type Assessment } from './assess.js';
import { formerPath, pathOf } from '../decide/placement.js';
import type { Action, DecisionKind } from '../decide/types.js';

/** One file's decision as every report shows it: what happens, and why when it is held. */
export type Decided = {
  readonly path: string;
  /** Where the file was, for a decision that moves it or its document (`from → path`). */
  readonly from?: string;
  readonly kind: DecisionKind;
  /** The URL of the document the decision deletes (a move's old document, a delete's), where known: the page that goes. */
  readonly url?: string;
  /** The hold's code (see decide/held.ts), when held. */
  readonly reason?: string;
  readonly note?: string;
};

export type Previewed = Decided & { readonly assessment?: Assessment; readonly error?: { readonly code: ErrorCode; readonly message: string } };

/**
 * Every planned action assessed with reads only, as the run would assess it: what `sync --dry-run`,
 * `diff` and `status` print. A read that fails is reported for its file, not for the whole preview.
 */
export async function decideAll(io: AssessIO, actions: readonly Action[], concurrency = 16): Promise<Previewed[]> {
  const limit = createLimit(concurrency);
  return Promise.all(
    actions.map((action) =>
      limit(async (): Promise<Previewed> => {
        try {
          const assessment = await assess(io, action);
          return { ...decidedOf(assessment), assessment };
        } catch (error) {
          const code = error instanceof KbsyncError ? error.code : 'UNEXPECTED';
          return { ...placed(action), kind: plannedKind(action), error: { code, message: messageOf(error) } };
        }
      }),
    ),
  );
}

/** The file a decision is about, and where it was when the decision moves it. */
function placed(action: Action): Pick<Decided, 'path' | 'from'> {
  const from = formerPath(action);
  return { path: pathOf(action), ...(from === undefined ? {} : { from }) };
}

/** The page a decision deletes, where its record knows the URL: a move's old document, a delete's. */
function deletedPage({ kind, detail }: Assessment): string | undefined {
  if (kind !== 'move' && kind !== 'delete-remote') return undefined;
  return detail.tag === 'move' || detail.tag === 'delete-remote' ? detail.record.url || undefined : undefined;
}

function decidedOf(assessment: Assessment): Decided {
  const gone = deletedPage(assessment);
  return {
    ...placed(assessment.action),
    kind: assessment.kind,
    ...(gone ? { url: gone } : {}),
    ...(assessment.held ? { reason: assessment.held.code } : {}),
    ...(assessment.note ? { note: assessment.note } : {}),
  };
}

/** What a report lists as decided: everything but the checks that found nothing to do. */
export const shown = <T extends Pick<Decided, 'kind'>>(decided: readonly T[]): T[] => decided.filter((d) => d.kind !== 'none');
