import { join } from 'node:path';
import type { KbClient } from '../api/index.js';
import type { DocumentRecord, Ledger } from '../ledger/index.js';
import { readTextFile } from '../local/index.js';
import { blocksHash, blocksToMarkdown, merge3, type Alignment } from '../markdown/index.js';
import type { Block } from '../model/blocks.js';
import { joinText, splitText } from './document-text.js';
import type { Inspection } from './status.js';
import { pathOf } from './placement.js';
import { agrees, pushMarkdown } from './steps/push-body.js';
import type { Action, SyncMode } from './types.js';

/**
 * What a sync would write, per planned action, computed the way the sync steps compute it (the same
 * three-way merge, the same push Markdown) but with reads only.
 * - `local`: the file now → the file a pull would write (absent when the file would not change);
 * - `remote`: the knowledge base's body now, in the file's Markdown → the body a push would send.
 */
export type Preview = {
  readonly path: string;
  readonly kind: Action['kind'];
  readonly local?: { readonly before: string; readonly after: string };
  readonly remote?: { readonly before: string; readonly after: string };
  /** Blocks both sides changed differently: a conflict copy would be written. */
  readonly conflicts: number;
  readonly note?: string;
};

export type PreviewContext = {
  readonly client: KbClient;
  readonly ledger: Ledger | undefined;
  readonly root: string;
  readonly mode: SyncMode;
  readonly links: boolean;
};

const NOTES: Partial<Record<Action['kind'], string>> = {
  'delete-remote': 'deleted locally: the document would be deleted, if kbsync created it',
  'trash-local': "deleted in the knowledge base: the file would move to kbsync's trash",
  forget: 'gone on both sides: only the ledger row would be dropped',
  recreate: 'edited locally but deleted in the knowledge base: the document would be created again',
  'new-local-folder': 'a new remote folder: the local folder would be created',
};

export async function previewActions(ctx: PreviewContext, inspection: Inspection, only?: (path: string) => boolean): Promise<Preview[]> {
  const actions = inspection.plan.actions.filter((action) => !only || only(pathOf(action)));
  return Promise.all(actions.map((action) => previewOne(ctx, inspection, action)));
}

async function previewOne(ctx: PreviewContext, inspection: Inspection, action: Action): Promise<Preview> {
  const path = pathOf(action);
  const note = NOTES[action.kind];
  switch (action.kind) {
    case 'create': {
      const text = await localText(ctx, inspection, path);
      return { path, kind: action.kind, remote: { before: '', after: outgoing(ctx, path, splitText(text).body) }, conflicts: 0, note: `a new document "${action.title}" would be created` };
    }
    case 'new-local': {
      const body = blocksToMarkdown(await ctx.client.readBlocks(action.remote.docKey));
      return { path, kind: action.kind, local: { before: '', after: body }, conflicts: 0, note: `a new file from the document "${action.remote.title}"` };
    }
    case 'adopt': {
      const text = await localText(ctx, inspection, path);
      const remote = blocksToMarkdown(await ctx.client.readBlocks(action.remote.docKey));
      return { path, kind: action.kind, remote: { before: remote, after: outgoing(ctx, path, splitText(text).body) }, conflicts: 0, note: `would be linked to the existing document "${action.remote.title}" (never duplicated)` };
    }
    case 'push':
    case 'pull':
    case 'check':
    case 'merge':
    case 'restore':
    case 'move': {
      const record = ctx.ledger?.documents.get(action.record.path);
      if (!record) return { path, kind: action.kind, conflicts: 0 };
      const to = action.kind === 'move' ? action.to : path;
      return reconcilePreview(ctx, inspection, record, to, action.kind);
    }
    default:
      return { path, kind: action.kind, conflicts: 0, ...(note ? { note } : {}) };
  }
}

/** The arithmetic of the reconcile step: merge the remote's edits into the file, then what a push sends. */
async function reconcilePreview(ctx: PreviewContext, inspection: Inspection, record: DocumentRecord, path: string, kind: Action['kind']): Promise<Preview> {
  const remote = await ctx.client.readBlocks(record.docKey);
  const fileText = kind === 'restore' ? undefined : await localText(ctx, inspection, path);
  const base = splitText(record.baseMarkdown);
  const local = fileText === undefined ? base : splitText(fileText);
  const alignment = record.alignment as Alignment;
  const remoteChanged = blocksHash(remote) !== record.remoteBlocksHash;
  const mergeWith = (localBody: string): { body: string; conflicts: number } => {
    if (!remoteChanged) return { body: localBody, conflicts: 0 };
    const merged = merge3({ base: base.body, remoteBase: record.remoteBlocks, remote, local: localBody, alignment });
    return { body: merged.body, conflicts: merged.conflicts.length };
  };
  const merged = mergeWith(local.body);
  // The remote as it is now, in the file's own Markdown source (what the conflict copy would hold).
  const theirs = mergeWith(base.body).body;
  const after = joinText(local.head, merged.body);
  const localSide = ctx.mode !== 'push' && after !== (fileText ?? '') ? { before: fileText ?? '', after } : undefined;
  const remoteSide = ctx.mode !== 'pull' ? pushSide(ctx, path, theirs, ctx.mode === 'push' ? local.body : merged.body, remote) : undefined;
  return { path, kind, conflicts: merged.conflicts, ...(localSide ? { local: localSide } : {}), ...(remoteSide ? { remote: remoteSide } : {}) };
}

function pushSide(ctx: PreviewContext, path: string, theirs: string, body: string, remote: readonly Block[]): Preview['remote'] {
  const after = outgoing(ctx, path, body);
  if (agrees(after, remote)) return undefined;
  return { before: outgoing(ctx, path, theirs), after };
}

function outgoing(ctx: PreviewContext, path: string, body: string): string {
  return pushMarkdown(body, path, ctx.links && ctx.ledger ? { ledger: ctx.ledger } : undefined);
}

async function localText(ctx: PreviewContext, inspection: Inspection, path: string): Promise<string> {
  const known = inspection.local.texts.get(path);
  if (known) return known.text;
  return (await readTextFile(join(ctx.root, path), { displayPath: path })).text;
}
