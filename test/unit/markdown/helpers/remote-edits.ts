import fc from 'fast-check';
import type { Block } from '../../../../src/model/blocks.js';
import { newBlock, reindex } from './service-read.js';

/** An edit made in the web editor: block ids survive except for the blocks it adds. */
export type RemoteEdit = { readonly kind: 'insert' | 'insertItem' | 'retext' | 'delete'; readonly at: number };
export const remoteEdits = fc.array(
  fc.record({ kind: fc.constantFrom('insert', 'insertItem', 'retext', 'delete') as fc.Arbitrary<RemoteEdit['kind']>, at: fc.nat() }),
  { maxLength: 3 },
);

/** Apply edits to a read; new texts carry `marker<n>` words. Returns the markers still present. */
export function applyRemoteEdits(blocks: readonly Block[], edits: readonly RemoteEdit[], marker: string): { blocks: Block[]; markers: string[] } {
  const out = [...blocks];
  const markers: string[] = [];
  edits.forEach((edit, n) => {
    const text = `${marker}${n} words`;
    if (edit.kind === 'insert' || edit.kind === 'insertItem') {
      const at = edit.at % (out.length + 1);
      // An item joins the list of the item before it (same list id and level), as the editor does.
      const before = out[at - 1];
      const item = edit.kind === 'insertItem' && (before?.type === 'unorderedList' || before?.type === 'orderedList');
      out.splice(at, 0, item ? newBlock({ type: before.type, listId: before.listId, level: before.level, text }) : newBlock({ type: 'paragraph', text }));
      markers.push(`${marker}${n}`);
      return;
    }
    if (out.length === 0) return;
    const k = edit.at % out.length;
    const target = out[k] as Block;
    if (edit.kind === 'delete') out.splice(k, 1);
    else if (target.type !== 'table' && target.type !== 'unknown') {
      out[k] = { ...target, text };
      markers.push(`${marker}${n}`);
    }
  });
  const present = markers.filter((m) => out.some((block) => 'text' in block && block.text.includes(m)));
  return { blocks: reindex(out), markers: present };
}
