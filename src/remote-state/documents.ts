import { randomBytes } from 'node:crypto';
import type { RemoteNode } from '../api/index.js';
import type { Block } from '../model/blocks.js';
import type { BlockId, DocKey } from '../model/ids.js';
import type { StateKey } from './token.js';

/** The folder, under the synced root, that holds kbsync's state documents. */
export const STATE_FOLDER = '.kbsync';

/** Index documents hold the records every run reads; sources documents the files' text, read only when needed. */
export type Family = 'state' | 'sources';

/**
 * Characters of tokens per state document: under the 50,000 the service takes in one overwrite, with the
 * note. `KBSYNC_STATE_DOC_CHARS` (for tests, like KBSYNC_CRASH_AT) makes documents fill, and compactions
 * come, after a few dozen records rather than thousands.
 */
export const DOC_CHARS = docChars(process.env['KBSYNC_STATE_DOC_CHARS']);

function docChars(value: string | undefined): number {
  const n = Number(value);
  return value !== undefined && Number.isInteger(n) && n >= 2_000 && n <= 45_000 ? n : 45_000;
}

/** A state document as last listed, read or written: where the next append goes, and how full it is. */
export type StateDoc = {
  readonly family: Family;
  readonly seq: number;
  readonly docKey: DocKey;
  readonly title: string;
  /** The paragraph appends go to (undefined until read). */
  readonly dataBlockId: BlockId | undefined;
  readonly chars: number;
  /** Listed modifiedTime ('' when not known). */
  readonly modifiedTime?: string;
};

export const NOTES: Record<Family, string> = {
  state:
    "kbsync state (index): this document records which file of the synced folder is which document, so that every workstation and CI run syncs this folder the same way and never duplicates a document. kbsync writes it; do not edit, move or delete it. If kbsync reports it damaged, see 'Remote state' in kbsync's README.",
  sources:
    "kbsync state (sources): this document keeps the Markdown of each synced file as last synced, so that another workstation gets the files back exactly and merges against the right text. kbsync writes it; do not edit, move or delete it. If kbsync reports it damaged, see 'Remote state' in kbsync's README.",
};

/**
 * `kbsync-state-000012` (written before titles carried more), `kbsync-state-000012-<nonce>` (a keyless
 * writer's) or `kbsync-state-000012-<nonce>-<tag>` (a writer with the team's key: the tag signs the title,
 * so a reader with the key reads no document that another kbsync with the key did not make). The nonce
 * keeps two writers who start a document at once from choosing one title. The number says which came
 * later; two writers that start one at the very same moment share it (a writer whose document is full
 * joins one another started meanwhile: append.ts), and the titles order them, the same on every machine.
 */
const TITLE = /^kbsync-(state|sources)-(\d{6})(?:-([a-z2-7]{8})(?:-([0-9a-f]{16}))?)?$/;

/** `signed`: its tag verifies with the key; `forged`: it does not; `keyed`: it has a tag and there is no key to check it. */
type ParsedTitle = { readonly family: Family; readonly seq: number; readonly signed: 'legacy' | 'unsigned' | 'signed' | 'forged' | 'keyed' };

/** What a title says, and whether its tag verifies with `key`; undefined when it is not a state document's title. */
export function parseTitle(title: string, key: StateKey | undefined): ParsedTitle | undefined {
  const match = TITLE.exec(title);
  if (!match) return undefined;
  const family = match[1] as Family;
  const seq = Number(match[2]);
  const [nonce, tag] = [match[3], match[4]];
  if (nonce === undefined) return { family, seq, signed: 'legacy' };
  if (tag === undefined) return { family, seq, signed: 'unsigned' };
  if (!key) return { family, seq, signed: 'keyed' };
  // A title signed for the workspace alone (before titles were bound to their folder) is the team's too: what
  // a document holds is judged token by token (token.ts), and its tokens are bound to their folder.
  const body = titleBody(family, seq, nonce);
  return { family, seq, signed: key.tag(body).slice(0, 16) === tag || key.workspaceTag(body).slice(0, 16) === tag ? 'signed' : 'forged' };
}

const titleBody = (family: Family, seq: number, nonce: string): string => `title:${family}:${seq}:${nonce}`;

/** A new document's title: signed with the key when there is one. */
export function newTitle(family: Family, seq: number, key: StateKey | undefined): string {
  const nonce = [...randomBytes(8)].map((byte) => 'abcdefghijklmnopqrstuvwxyz234567'[byte % 32]).join('');
  const base = `kbsync-${family}-${String(seq).padStart(6, '0')}-${nonce}`;
  return key ? `${base}-${key.tag(titleBody(family, seq, nonce)).slice(0, 16)}` : base;
}

/** The state document a listed node is, if its title is one. */
export function stateDocOf(node: RemoteNode): StateDoc | undefined {
  const match = TITLE.exec(node.title);
  if (node.type !== 'FILE' || !node.docKey || !match) return undefined;
  return { family: match[1] as Family, seq: Number(match[2]), docKey: node.docKey, title: node.title, dataBlockId: undefined, chars: 0, modifiedTime: node.modifiedTime };
}

export const bySeq = (a: StateDoc, b: StateDoc): number => (a.family === b.family ? a.seq - b.seq || (a.title < b.title ? -1 : a.title > b.title ? 1 : 0) : a.family < b.family ? -1 : 1);

/** The tokens of a state document: every paragraph after the note, joined; appends go to the last one. */
export function dataOf(blocks: readonly Block[]): { text: string; dataBlockId: BlockId | undefined } {
  const paragraphs = blocks.filter((block): block is Extract<Block, { type: 'paragraph' }> => block.type === 'paragraph').slice(1);
  return { text: paragraphs.map((p) => p.text).join(' '), dataBlockId: paragraphs.at(-1)?.id };
}
