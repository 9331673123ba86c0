import type { DocKey, BlockId } from '../../model/ids.js';
import type { Block } from '../../model/blocks.js';
import { KbsyncError } from '../../errors.js';
import { backupText } from '../../local/index.js';
import { appendOnlyChange, blocksToMarkdown, contentOfBlock, outline, sameContent, toPushMarkdown, type Alignment } from '../../markdown/index.js';
import type { Ledger } from '../../ledger/index.js';
import type { SyncContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import { linksToUrls } from '../links.js';

export type Append = { readonly blockId: BlockId; readonly text: string };

export type Outgoing = {
  /** Exactly what an overwrite sends. */
  readonly markdown: string;
  /** Does the service already hold this content? Then there is nothing to send (identical edits, a crash after the write). */
  agreesWith(blocks: readonly Block[]): boolean;
  appendOnly(baseBody: string, localBody: string, remoteBase: readonly Block[], alignment: Alignment): Append | undefined;
  /** Backs up the remote body, writes (append when possible, else overwrite) and returns the blocks read back (rule 8). */
  send(docKey: DocKey, before: readonly Block[], append: Append | undefined): Promise<readonly Block[]>;
};

/**
 * Exactly the Markdown an overwrite sends for a file's body: push-normalised, and with `links`, relative
 * links to synced files as document URLs (looked up in the ledger). `diff` shows the same text.
 */
export function pushMarkdown(body: string, path: string, links: { readonly ledger: Pick<Ledger, 'documents'> } | undefined): string {
  const normalised = toPushMarkdown(body);
  return links ? linksToUrls(normalised, path, (target) => links.ledger.documents.summary(target)?.url) : normalised;
}

export function pushBody(ctx: SyncContext, path: string, body: string): Outgoing {
  const markdown = pushMarkdown(body, path, ctx.links ? ctx : undefined);
  return {
    markdown,
    agreesWith: (blocks) => agrees(markdown, blocks),
    appendOnly: (baseBody, localBody, remoteBase, alignment) => appendOnlyChange(baseBody, localBody, remoteBase, alignment),
    async send(docKey, before, append) {
      if (before.length > 0) await backupText(ctx.stateDir, 'remote', path, blocksToMarkdown(before), { now: ctx.now() });
      if (append) await ctx.client.appendText(docKey, append.blockId, append.text);
      else await ctx.client.overwrite(docKey, markdown);
      crashPoint('after-overwrite');
      const after = await ctx.client.readBlocks(docKey);
      // Someone else wrote between our write and this read: recording their body as what we pushed would
      // hide both edits from every later run. Failing leaves the ledger as it was, so the next run merges.
      if (!agrees(markdown, after)) throw changedDuringWrite(path);
      return after;
    },
  };
}

function changedDuringWrite(path: string): KbsyncError {
  return new KbsyncError(
    'REMOTE_CHANGED_DURING_WRITE',
    `"${path}" changed in the knowledge base while kbsync was writing it (someone else saved it at the same moment). ` +
      'Nothing was lost: your version is in the file, theirs is in the knowledge base.',
    { hint: 'Sync again: the next run merges both versions (a conflict copy is written if they clash).' },
  );
}

/** The outline kbsync expects the service to make of `markdown`, compared block by block with what it holds. */
export function agrees(markdown: string, blocks: readonly Block[]): boolean {
  const expected = outline(markdown);
  return expected.length === blocks.length && expected.every((node, i) => sameContent(node, contentOfBlock(blocks[i] as Block)));
}
