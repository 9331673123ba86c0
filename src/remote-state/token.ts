import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * How one piece of kbsync's state is written into a document so that it reads back exactly: the service
 * turns Markdown into blocks and gives paragraphs back as plain text, so a token must be plain text that
 * Markdown reads as itself. A token is one letter (its kind), base64 (letters, digits, `+`, `/`; no `=`),
 * a dot and hex: no emphasis, link, escape or line break can form from those in the middle of a one-line
 * paragraph. Tokens are separated by single spaces, so appends can add more.
 *
 * The hex after the dot is 12 characters of sha256 (the token is whole: a token altered or cut is found),
 * and, when the writer holds the team's state key, 32 more of an HMAC-SHA256 over the workspace and the
 * token: only a kbsync with the key can write a token that verifies, and a token copied from another
 * workspace does not.
 */

const CHECK_CHARS = 12;
const TAG_CHARS = 32;
/** A token longer than a state document can hold was not written by kbsync. */
const MAX_TOKEN_CHARS = 50_000;

/** The team's key, as kbsync signs and verifies tokens with it (never printed: see config/secret-source). */
export type StateKey = { readonly tag: (body: string) => string };

/** The HMAC of a token's body, bound to the workspace (a token copied between workspaces does not verify). */
export function stateKey(secret: string, workspaceId: string): StateKey {
  return { tag: (body) => createHmac('sha256', secret).update(`kbsync-state\0${workspaceId}\0`).update(body).digest('hex').slice(0, TAG_CHARS) };
}

/**
 * How far a token can be trusted: `verified`, signed with this machine's key; `unsigned`, whole but
 * signed by no key this machine can check (a keyless writer, a forger, or any token when this machine
 * has no key); `forged`, signed, but not with this machine's key; `damaged`, not whole or not a token.
 */
export type Trust = 'verified' | 'unsigned' | 'forged' | 'damaged';

const base64 = (bytes: Buffer): string => bytes.toString('base64').replace(/=+$/, '');
const checksum = (body: string): string => createHash('sha256').update(body).digest('hex').slice(0, CHECK_CHARS);

/** `kind` and `bytes` as one token, signed when a key is given. */
export function frame(kind: string, bytes: Buffer, key: StateKey | undefined): string {
  const body = `${kind}${base64(bytes)}`;
  return `${body}.${checksum(body)}${key ? key.tag(body) : ''}`;
}

type Unframed = { readonly trust: Trust; readonly kind: string; readonly bytes: Buffer };

const HEX = /^[0-9a-f]+$/;

/** Reads one token back: its kind and bytes, and how far it can be trusted by a reader holding `key` (or none). */
export function unframe(raw: string, key: StateKey | undefined): Unframed {
  const damaged: Unframed = { trust: 'damaged', kind: '', bytes: Buffer.alloc(0) };
  if (raw.length > MAX_TOKEN_CHARS) return damaged;
  const dot = raw.lastIndexOf('.');
  if (dot < 2) return damaged;
  const body = raw.slice(0, dot);
  const check = raw.slice(dot + 1);
  if ((check.length !== CHECK_CHARS && check.length !== CHECK_CHARS + TAG_CHARS) || !HEX.test(check) || !/^[A-Za-z0-9+/]+$/.test(body)) return damaged;
  if (check.slice(0, CHECK_CHARS) !== checksum(body)) return damaged;
  const bytes = Buffer.from(body.slice(1), 'base64');
  const tag = check.slice(CHECK_CHARS);
  if (!key || tag === '') return { trust: 'unsigned', kind: body[0] as string, bytes };
  const expected = Buffer.from(key.tag(body), 'utf8');
  const trust = timingSafeEqual(expected, Buffer.from(tag, 'utf8')) ? 'verified' : 'forged';
  return { trust, kind: body[0] as string, bytes };
}

/**
 * What names a key without revealing it: published in the shared state (which key signs it) and shown by
 * `kbsync doctor`, so two machines can tell whether they hold the same key. Not bound to a workspace: the
 * same key gives the same fingerprint everywhere.
 */
export const keyFingerprint = (secret: string): string => createHash('sha256').update(`kbsync-state-key-fingerprint\0${secret}`).digest('hex').slice(0, 16);
