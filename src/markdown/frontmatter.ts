import { createRequire } from 'node:module';
import type GrayMatter from 'gray-matter';
import { InputError } from '../errors.js';

/** gray-matter (and js-yaml under it) is loaded on first use: a run that reads no file does not pay for it. */
let grayMatter: typeof GrayMatter | undefined;
const require = createRequire(import.meta.url);
const matter = (): typeof GrayMatter => (grayMatter ??= require('gray-matter') as typeof GrayMatter);

type MemberRole = 'viewer' | 'editor';
export type FrontMatterMember = { readonly userId: string; readonly role: MemberRole };

/** kbsync's keys; every other key is kept in `extra` and written back. Never sent to the service. */
export type FrontMatter = {
  readonly title?: string;
  readonly members?: readonly FrontMatterMember[];
  readonly publish?: boolean;
  readonly extra: Readonly<Record<string, unknown>>;
};

export type ParsedDocument = {
  readonly frontMatter: FrontMatter;
  /** What is pushed: the file after its front matter. */
  readonly body: string;
  readonly hasFrontMatter: boolean;
  /** The front matter exactly as written (delimiters and the newline after them included), '' if none. */
  readonly frontMatterText: string;
  /** Set when the YAML parser refused the front matter and it was read key by key, as the editor opens such a note. */
  readonly lenient?: Lenient;
};

/** What a key-by-key reading of front matter left out: the keys whose values cannot be read, and the parser's word on the whole. */
type Lenient = { readonly left: readonly string[]; readonly error: string };

const refuse = (language: string) => () => {
  throw new InputError('FRONT_MATTER_LANGUAGE', `Front matter in "${language}" is not supported (it would run code).`, {
    hint: 'Write the front matter as YAML between --- lines.',
  });
};
/** gray-matter evaluates `---js` front matter; only data languages are allowed. */
const OPTIONS = { engines: { js: refuse('js'), javascript: refuse('javascript'), coffee: refuse('coffee'), coffeescript: refuse('coffeescript') } };

function where(path: string | undefined): string {
  return path === undefined ? 'the front matter' : `the front matter of ${path}`;
}

function yamlLine(error: unknown): number | undefined {
  const mark = (error as { mark?: { line?: number } }).mark;
  // js-yaml counts from 0 starting on the opening --- line (gray-matter hands it the text after ---).
  return typeof mark?.line === 'number' ? mark.line + 1 : undefined;
}

function validated(data: Record<string, unknown>, path: string | undefined): FrontMatter {
  const { title, members, publish, ...extra } = data;
  const bad = (key: string, value: unknown, expected: string): InputError =>
    new InputError('FRONT_MATTER_INVALID', `In ${where(path)}, "${key}" is ${JSON.stringify(value)}; expected ${expected}.`, {
      hint: 'Fix the value or remove the key.',
    });
  if (title !== undefined && typeof title !== 'string' && typeof title !== 'number') throw bad('title', title, 'a text');
  if (publish !== undefined && typeof publish !== 'boolean') throw bad('publish', publish, 'true or false');
  let parsedMembers: FrontMatterMember[] | undefined;
  if (members !== undefined && members !== null) {
    if (!Array.isArray(members)) throw bad('members', members, 'a list of { userId, role }');
    parsedMembers = members.map((member: unknown, k) => {
      const { userId, role } = (member ?? {}) as { userId?: unknown; role?: unknown };
      const ok = typeof member === 'object' && (typeof userId === 'string' || typeof userId === 'number') && (role === 'viewer' || role === 'editor');
      if (!ok) throw bad(`members[${k}]`, member, '{ userId: <text>, role: viewer | editor }');
      return { userId: String(userId), role: role as MemberRole };
    });
  }
  return {
    ...(title !== undefined ? { title: String(title) } : {}),
    ...(parsedMembers ? { members: parsedMembers } : {}),
    ...(publish !== undefined ? { publish } : {}),
    extra,
  };
}

/** kbsync's own keys: read exactly or not at all (a `publish: false` misread would publish a private note). */
const OWN_KEYS = new Set(['title', 'members', 'publish']);

/** The YAML between a file's opening `---` line and the next `---` (or `...`) line, and where the body starts. */
const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/**
 * Front matter the YAML parser refused, read as a note editor opens such a note (Obsidian shows the note, and
 * what of its properties it can): key by key, each top-level key with the lines under it parsed alone, the
 * later of two alike winning; a key that does not parse is left out. Undefined (the file is refused, as
 * before) when kbsync's own keys are not read exactly: unreadable, or given twice.
 */
function keyByKey(text: string, error: unknown): { readonly data: Record<string, unknown>; readonly content: string; readonly lenient: Lenient } | undefined {
  const found = FRONT_MATTER.exec(text);
  if (!found) return undefined;
  const blocks: string[][] = [];
  for (const line of (found[1] as string).split(/\r?\n/)) {
    if (/^[^\s#-]/.test(line) || blocks.length === 0) blocks.push([line]);
    else (blocks.at(-1) as string[]).push(line);
  }
  const data: Record<string, unknown> = {};
  const left: string[] = [];
  const seen = new Set<string>();
  for (const block of blocks) {
    const key = /^([^:#\s][^:]*):/.exec(block[0] as string)?.[1]?.trim() ?? (block[0] as string).trim();
    if (OWN_KEYS.has(key) && seen.has(key)) return undefined;
    seen.add(key);
    try {
      Object.assign(data, matter()(`---\n${block.join('\n')}\n---\n`, OPTIONS).data);
    } catch {
      if (OWN_KEYS.has(key)) return undefined;
      if (key !== '') left.push(key);
    }
  }
  const line = yamlLine(error);
  return { data, content: text.slice(found[0].length), lenient: { left, error: `${line === undefined ? '' : `line ${line}: `}${(error as Error).message.split('\n')[0]}` } };
}

/**
 * Split a local file into front matter and body. Front matter the YAML parser refuses is read key by key
 * (keyByKey); what cannot be read so, or a bad value of kbsync's own keys, is an InputError: nothing is written.
 */
export function parseDocument(text: string, path?: string): ParsedDocument {
  let file: { data: unknown; content: string };
  let lenient: Lenient | undefined;
  try {
    file = matter()(text, OPTIONS);
  } catch (error) {
    if (error instanceof InputError) throw error;
    const read = keyByKey(text, error);
    if (!read) {
      const line = yamlLine(error);
      throw new InputError(
        'FRONT_MATTER_YAML',
        `${where(path)} is not valid YAML${line === undefined ? '' : ` (line ${line})`}: ${(error as Error).message.split('\n')[0]}.`,
        { hint: 'Fix the YAML between the --- lines (kbsync reads title, members and publish only when they are exact); if the file starts with a horizontal rule, put a blank line before it.', cause: error },
      );
    }
    file = read;
    lenient = read.lenient;
  }
  const hasFrontMatter = /^\uFEFF?---/.test(text) && file.content !== text;
  const data = file.data ?? {};
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new InputError('FRONT_MATTER_INVALID', `${where(path)} is not a mapping of keys to values.`, {
      hint: 'Write it as "key: value" lines between --- lines.',
    });
  }
  const body = hasFrontMatter ? file.content : text;
  const frontMatterText = text.endsWith(body) ? text.slice(0, text.length - body.length) : '';
  return { frontMatter: validated(data as Record<string, unknown>, path), body, hasFrontMatter, frontMatterText, ...(lenient ? { lenient } : {}) };
}

function frontMatterData(frontMatter: FrontMatter): Record<string, unknown> {
  return {
    ...(frontMatter.title !== undefined ? { title: frontMatter.title } : {}),
    ...(frontMatter.members ? { members: frontMatter.members.map((m) => ({ userId: m.userId, role: m.role })) } : {}),
    ...(frontMatter.publish !== undefined ? { publish: frontMatter.publish } : {}),
    ...frontMatter.extra,
  };
}

/**
 * The file text for a document. The original front matter text is kept byte for byte unless the front
 * matter itself changed (only then is it written anew as YAML).
 */
export function serializeDocument(doc: { readonly body: string; readonly frontMatter?: FrontMatter; readonly frontMatterText?: string }): string {
  const original = doc.frontMatterText ?? '';
  if (doc.frontMatter === undefined) return original + doc.body;
  const unchanged = original !== '' && JSON.stringify(parseDocument(original + '\n').frontMatter) === JSON.stringify(doc.frontMatter);
  if (unchanged) return original + doc.body;
  const data = frontMatterData(doc.frontMatter);
  if (Object.keys(data).length === 0) return doc.body;
  return matter().stringify('', data).replace(/\n+$/, '\n') + doc.body;
}
