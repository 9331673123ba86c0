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

type ParsedDocument = {
  readonly frontMatter: FrontMatter;
  /** What is pushed: the file after its front matter. */
  readonly body: string;
  readonly hasFrontMatter: boolean;
  /** The front matter exactly as written (delimiters and the newline after them included), '' if none. */
  readonly frontMatterText: string;
};

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

/** Split a local file into front matter and body. Malformed front matter is an InputError; nothing is written. */
export function parseDocument(text: string, path?: string): ParsedDocument {
  let file: { data: unknown; content: string };
  try {
    file = matter()(text, OPTIONS);
  } catch (error) {
    if (error instanceof InputError) throw error;
    const line = yamlLine(error);
    throw new InputError(
      'FRONT_MATTER_YAML',
      `${where(path)} is not valid YAML${line === undefined ? '' : ` (line ${line})`}: ${(error as Error).message.split('\n')[0]}.`,
      { hint: 'Fix the YAML between the --- lines; if the file starts with a horizontal rule, put a blank line before it.', cause: error },
    );
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
  return { frontMatter: validated(data as Record<string, unknown>, path), body, hasFrontMatter, frontMatterText };
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
