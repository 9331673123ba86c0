import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * How one piece of kbsync's state is written into a document so that it reads back exactly: the service
 * turns Markdown into blocks and gives paragraphs back as plain text, so a token must be plain text that
 * Markdown reads as itself. A token is one letter (its kind), base64 (letters, digits, `+`, `/`; no `=`),
 * a dot and hex: no emphasis, link, escape or line break can form from those in the middle of a one-line
 * paragraph. Tokens are separated by single spaces, so appends can add more.
 *
 * The hex after the dot is 12 characters of sha256 (the token is whole: a token altered or cut is found),
 * and, when the writer holds the team's state key, 32 more of an HMAC-SHA256 over the workspace, the synced
 * folder and the token: only a kbsync with the key can write a token that verifies, and a token copied from
 * another workspace, or from the state of another synced folder of the same workspace, does not.
 */

const CHECK_CHARS = 12;
const TAG_CHARS = 32;
/** A token longer than a state document can hold was not written by kbsync. */
const MAX_TOKEN_CHARS = 50_000;

/**
 * The team's key, as kbsync signs and verifies tokens with it (never printed: see config/secret-source):
 * `tag` binds a token to the workspace and the synced folder; `workspaceTag` to the workspace alone, as
 * kbsync signed before (read only until the folder's state is rewritten bound: see read.ts).
 */
export type StateKey = { readonly tag: (body: string) => string; readonly workspaceTag: (body: string) => string };

const hmac = (secret: string, binding: string, body: string): string => createHmac('sha256', secret).update(binding).update(body).digest('hex').slice(0, TAG_CHARS);

/** The HMAC of a token's body, bound to the workspace and the synced folder (its root node): a token copied to another state does not verify. */
export function stateKey(secret: string, workspaceId: string, folderId: string): StateKey {
  return {
    tag: (body) => hmac(secret, `kbsync-state\0${workspaceId}\0${folderId}\0`, body),
    workspaceTag: (body) => hmac(secret, `kbsync-state\0${workspaceId}\0`, body),
  };
}

/**
 * How far a token can be trusted: `verified`, signed with this machine's key for this folder;
 * `workspace`, signed with this machine's key for the workspace alone (written before tokens were bound to
 * their folder: this folder's, or another's copied here); `unsigned`, whole but signed by no key this
 * machine can check (a keyless writer, a forger, or any token when this machine has no key); `forged`,
 * signed, but not with this machine's key; `damaged`, not whole or not a token.
 */
export type Trust = 'verified' | 'workspace' | 'unsigned' | 'forged' | 'damaged';

const base64 = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '');
const checksum = (body: string): string => createHash('sha256').update(body).digest('hex').slice(0, CHECK_CHARS);

/** `kind` and `bytes` as one token, signed when a key is given. */
export function frame(kind: string, bytes: Buffer, key: StateKey | undefined): string {
  const body = `${kind}${base64(bytes)}`;
  return `${body}.${checksum(body)}${key ? key.tag(body) : ''}`;
}

type Unframed = { readonly trust: Trust; readonly kind: string; readonly bytes: Buffer };

const HEX = /^[0-9a-f]+$/;

/** A whole token's body and tag ('' when unsigned); undefined when it is not whole or not a token. */
function whole(raw: string): { readonly body: string; readonly tag: string } | undefined {
  if (raw.length > MAX_TOKEN_CHARS) return undefined;
  const dot = raw.lastIndexOf('.');
  if (dot < 2) return undefined;
  const body = raw.slice(0, dot);
  const check = raw.slice(dot + 1);
  if ((check.length !== CHECK_CHARS && check.length !== CHECK_CHARS + TAG_CHARS) || !HEX.test(check) || !/^[A-Za-z0-9+/]+$/.test(body)) return undefined;
  if (check.slice(0, CHECK_CHARS) !== checksum(body)) return undefined;
  return { body, tag: check.slice(CHECK_CHARS) };
}

/** Reads one token back: its kind and bytes, and how far it can be trusted by a reader holding `key` (or none). */
export function unframe(raw: string, key: StateKey | undefined): Unframed {
  const token = whole(raw);
  if (!token) return { trust: 'damaged', kind: '', bytes: Buffer.alloc(0) };
  const { body, tag } = token;
  const bytes = Buffer.from(body.slice(1), 'base64');
  if (!key || tag === '') return { trust: 'unsigned', kind: body[0] as string, bytes };
  const given = Buffer.from(tag, 'utf8');
  const trust = timingSafeEqual(Buffer.from(key.tag(body), 'utf8'), given) ? 'verified' : timingSafeEqual(Buffer.from(key.workspaceTag(body), 'utf8'), given) ? 'workspace' : 'forged';
  return { trust, kind: body[0] as string, bytes };
}

/**
 * Whether `raw` is a whole token that carries a signature, of whatever key: what a kbsync with a state key
 * writes, and a keyless one never does. A reader without the key cannot tell a genuine one from a copy.
 */
export const isSignedToken = (raw: string): boolean => (whole(raw)?.tag ?? '') !== '';

/**
 * What names a key without revealing it: published in the shared state (which key signs it) and shown by
 * `kbsync doctor`, so two machines can tell whether they hold the same key. Not bound to a workspace: the
 * same key gives the same fingerprint everywhere.
 */
export const keyFingerprint = (secret: string): string => createHash('sha256').update(`kbsync-state-key-fingerprint\0${secret}`).digest('hex').slice(0, 16);
