import type { DumpedNode } from '../../src/emulator/index.js';
import { visibleReading } from '../model/oracle.js';
import { isOpaque } from './pages.js';

/**
 * The soak's rule of which files may stay held once everything has settled, and the history of each page it
 * needs: main's rule under the default `merge.webEdits: "merge"` (README "What a colleague's edit leaves in
 * doubt"). A hold costs a person's attention, so only what kbsync cannot compare may wait:
 * - a page with code blocks, tables, images or anything else a read hides (pages.ts) that a colleague edited
 *   in the web editor (a hidden change can ride along with a visible one in the same save): its overwrite
 *   (FLATTEN), delete (DELETE_LOSSY) and move (MOVE_LOSSY; MOVE_PLACEHOLDERS where the colleague's new block would
 *   come into the moved file as a placeholder) wait, and a hidden edit seen there (HIDDEN_EDIT);
 * - a page a colleague changed with no visible difference (a read shows nothing to compare): HIDDEN_EDIT, and
 *   the move that would make the document anew without it (MOVE_LOSSY).
 * On a page whose every block a read shows, a colleague's edit is known exactly but for the formatting of the
 * words they wrote: it is merged, the lines named once (FORMATTING_UNSEEN), and the next local edit published,
 * with nobody asked; no hold may stand there. The formatting that push writes over is the README's stated
 * window (verdict.ts counts it). A file holding placeholders is no hold a colleague explains: every document
 * here was made from a file whose source the shared state keeps (verdict.ts says so as a finding of its own).
 * One hold has nothing to do with the colleague and is a team's own choice: a team without a state key cannot
 * verify the id that deletes a document another machine made (README "Authenticated records"), so such a
 * delete waits for a person (ID_UNVERIFIED).
 */

/** What the colleague did to one page (by title and by document: a move makes a new document of one title). */
export type PageHistory = {
  /** A colleague edited it while it held something reads hide (before or after their edit). */
  readonly opaqueEdit: boolean;
  /** A colleague's edit left every block a read shows as it was. */
  readonly invisibleEdit: boolean;
  /** A colleague edited it while every block of it was shown. */
  readonly proseEdit: boolean;
  /** One of those prose edits added inline formatting (bold, a link, inline code). */
  readonly formattingAdded: boolean;
};

const NONE: PageHistory = { opaqueEdit: false, invisibleEdit: false, proseEdit: false, formattingAdded: false };

/** The holds that keep a document a colleague edited where reads cannot see, in each of its forms (an overwrite, a hidden edit seen, a delete, a move). */
const OPAQUE_HOLDS: ReadonlySet<string> = new Set(['FLATTEN', 'HIDDEN_EDIT', 'DELETE_LOSSY', 'MOVE_LOSSY', 'MOVE_PLACEHOLDERS']);
/** The holds of a change with no visible difference: the hidden edit itself, and the move that would drop it. */
const INVISIBLE_HOLDS: ReadonlySet<string> = new Set(['HIDDEN_EDIT', 'MOVE_LOSSY']);

export type HoldVerdict = { readonly allowed: boolean; readonly why: string };

/** The team the machines are in: with a state key, or (`keyless`) without one. */
export type Team = { readonly keyless: boolean };

/** May a file stay held with `code` once settled, given what the colleague did to its page and the team? */
export function holdVerdict(code: string, page: PageHistory = NONE, team: Team = { keyless: false }): HoldVerdict {
  if (code === 'ID_UNVERIFIED' && team.keyless) return { allowed: true, why: "a keyless team's delete of a document another machine made (no key to verify the id)" };
  if (INVISIBLE_HOLDS.has(code) && page.invisibleEdit) return { allowed: true, why: "a colleague's change with no visible difference" };
  if (OPAQUE_HOLDS.has(code) && page.opaqueEdit) return { allowed: true, why: 'a page with code, tables, images or other blocks reads hide that a colleague edited' };
  if (page.proseEdit) return { allowed: false, why: `after a colleague's edit of a prose page${page.formattingAdded ? ' (one that added inline formatting)' : ''}` };
  if (page.opaqueEdit || page.invisibleEdit) return { allowed: false, why: `${code} is not a hold a colleague's edit explains` };
  return { allowed: false, why: 'no colleague edited this page' };
}

/** A colleague's paragraph carries inline formatting: `**bold**`, `*emphasis*`, a link or inline code. */
const FORMATTED = /\*\*[^*]+\*\*|(^|\s)\*[^*\s][^*]*\*|\]\(|`[^`]+`/;

/** The pages the colleague edited, by title and by document id. */
export class Pages {
  readonly #byKey = new Map<string, PageHistory>();

  /** The colleague changed a document from `before` to `after` (both as the service holds them), adding these paragraphs. */
  colleagueEdited(before: DumpedNode, after: DumpedNode, added: readonly string[]): void {
    const opaque = isOpaque(before.markdown ?? '') || isOpaque(after.markdown ?? '');
    const invisible = visibleReading(before) === visibleReading(after);
    const formatting = !opaque && added.some((text) => FORMATTED.test(text));
    for (const key of [`title:${before.title}`, `doc:${before.dentryUuid}`]) {
      const was = this.#byKey.get(key) ?? NONE;
      this.#byKey.set(key, {
        opaqueEdit: was.opaqueEdit || opaque,
        invisibleEdit: was.invisibleEdit || invisible,
        proseEdit: was.proseEdit || !opaque,
        formattingAdded: was.formattingAdded || formatting,
      });
    }
  }

  /** What the colleague did to a document (undefined: nothing), joining what they did under its title. */
  of(doc: Pick<DumpedNode, 'title' | 'dentryUuid'>): PageHistory | undefined {
    const byTitle = this.#byKey.get(`title:${doc.title}`);
    const byDoc = this.#byKey.get(`doc:${doc.dentryUuid}`);
    if (!byTitle || !byDoc) return byTitle ?? byDoc;
    return {
      opaqueEdit: byTitle.opaqueEdit || byDoc.opaqueEdit,
      invisibleEdit: byTitle.invisibleEdit || byDoc.invisibleEdit,
      proseEdit: byTitle.proseEdit || byDoc.proseEdit,
      formattingAdded: byTitle.formattingAdded || byDoc.formattingAdded,
    };
  }
}
