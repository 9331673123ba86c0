import GithubSlugger from 'github-slugger';
import type { Html } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { visit } from 'unist-util-visit';
import { factOf } from '../markdown/parse.js';

/** `## Install {#setup}`: the explicit heading id of Hugo, Docusaurus, kramdown and Pandoc. */
const EXPLICIT_ID = /\s*\{#([^\s}]+)\}\s*$/;
/** `<a id="x"></a>` / `<a name="x">` placed just before a heading: an older way to name it. */
const HTML_ID = /\b(?:id|name)\s*=\s*["']([^"']+)["']/gi;

/**
 * The anchors of a Markdown body's headings: each id a docs site gives a heading (GitHub-style slug,
 * the explicit `{#id}`, an HTML id just before it) → the id of the same heading on the knowledge base's
 * page, which is the GitHub-style slug of the heading's text as sent. Both sluggers number repeated
 * headings (`-1`, `-2`) in document order, as the sites do.
 */
export const headingAnchors: (body: string) => ReadonlyMap<string, string> = factOf((tree) => {
  const anchors = new Map<string, string>();
  const site = new GithubSlugger();
  const service = new GithubSlugger();
  let pendingHtml: string[] = [];
  visit(tree, (node) => {
    if (node.type === 'html') {
      pendingHtml.push(...[...(node as Html).value.matchAll(HTML_ID)].map((match) => match[1] as string));
      return;
    }
    if (node.type !== 'heading') return;
    const text = toString(node);
    const serviceId = service.slug(text);
    const explicit = EXPLICIT_ID.exec(text);
    const ids = [site.slug(explicit ? text.slice(0, explicit.index) : text), ...(explicit ? [explicit[1] as string] : []), ...pendingHtml];
    pendingHtml = [];
    for (const id of ids) if (!anchors.has(id)) anchors.set(id, serviceId);
  });
  return anchors;
});
