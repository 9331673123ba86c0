import { posix } from 'node:path';
import { headingTitle, parseDocument, type FrontMatter, type ParsedDocument } from '../../markdown/index.js';

/**
 * A file split into its front matter (kept byte for byte: a pull never rewrites it) and its body
 * (what the service sees). Front matter is never sent as body text.
 */
type SplitText = { readonly head: string; readonly body: string; readonly frontMatter: FrontMatter; readonly lenient?: ParsedDocument['lenient'] };

export function splitText(text: string): SplitText {
  const parsed = parseDocument(text);
  return { head: parsed.frontMatterText, body: parsed.body, frontMatter: parsed.frontMatter, ...(parsed.lenient ? { lenient: parsed.lenient } : {}) };
}

export const joinText = (head: string, body: string): string => head + body;

/** Front matter `title`, else the first heading's words (no images, badges or HTML), else the file name. */
export function documentTitle(text: string, path: string): string {
  const { frontMatter, body } = splitText(text);
  const fromMatter = frontMatter.title?.trim();
  if (fromMatter) return fromMatter;
  const heading = headingTitle(body);
  if (heading) return heading;
  return posix.basename(path).replace(/\.md$/i, '');
}

/** `publish: false` in front matter keeps a file out of the knowledge base. */
export const isUnpublished = (text: string): boolean => splitText(text).frontMatter.publish === false;
