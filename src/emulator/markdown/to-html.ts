import GithubSlugger from 'github-slugger';
import type { Nodes } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { parseMarkdown } from './parse.js';

/** Escapes text for HTML content and attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Only web and mail links survive; `javascript:` and friends become a dead link. */
function safeUrl(url: string): string {
  return /^(https?:|mailto:|#|\/|\.{0,2}\/?[\w-])/i.test(url) && !/^\s*(javascript|data|vbscript):/i.test(url) ? url : '#';
}

const children = (node: Nodes & { children: readonly Nodes[] }, ids: GithubSlugger): string => node.children.map((child) => render(child, ids, node.type)).join('');

/** Phrasing containers: raw HTML inside them is inline text, elsewhere a block. */
const INLINE_PARENTS = new Set(['paragraph', 'heading', 'emphasis', 'strong', 'delete', 'link', 'linkReference', 'tableCell']);

/** A tiny mdast → HTML renderer for the read-only web view. Raw HTML in the Markdown is shown as text. */
function render(node: Nodes, ids: GithubSlugger, parentType?: string): string {
  switch (node.type) {
    case 'root':
      return children(node, ids);
    case 'heading':
      // Headings get GitHub-style ids (repeats numbered), so a link to `document URL#heading` opens at the heading.
      return `<h${node.depth} id="${escapeHtml(ids.slug(toString(node)))}">${children(node, ids)}</h${node.depth}>\n`;
    case 'paragraph':
      return `<p>${children(node, ids)}</p>\n`;
    case 'text':
      return escapeHtml(node.value);
    case 'emphasis':
      return `<em>${children(node, ids)}</em>`;
    case 'strong':
      return `<strong>${children(node, ids)}</strong>`;
    case 'delete':
      return `<del>${children(node, ids)}</del>`;
    case 'inlineCode':
      return `<code>${escapeHtml(node.value)}</code>`;
    case 'break':
      return '<br>';
    case 'link':
      return `<a href="${escapeHtml(safeUrl(node.url))}">${children(node, ids)}</a>`;
    case 'image':
      return `<img src="${escapeHtml(safeUrl(node.url))}" alt="${escapeHtml(node.alt ?? '')}">`;
    case 'code':
      return `<pre><code>${escapeHtml(node.value)}</code></pre>\n`;
    case 'html':
      return parentType !== undefined && INLINE_PARENTS.has(parentType) ? escapeHtml(node.value) : `<pre class="raw-html">${escapeHtml(node.value)}</pre>\n`;
    case 'blockquote':
      return `<blockquote>${children(node, ids)}</blockquote>\n`;
    case 'list': {
      const tag = node.ordered ? 'ol' : 'ul';
      return `<${tag}>${children(node, ids)}</${tag}>\n`;
    }
    case 'listItem':
      return `<li>${node.checked === null || node.checked === undefined ? '' : node.checked ? '[x] ' : '[ ] '}${children(node, ids)}</li>`;
    case 'thematicBreak':
      return '<hr>\n';
    case 'table':
      return `<table>${children(node, ids)}</table>\n`;
    case 'tableRow':
      return `<tr>${children(node, ids)}</tr>`;
    case 'tableCell':
      return `<td>${children(node, ids)}</td>`;
    default:
      if ('children' in node) return children(node, ids);
      return 'value' in node && typeof node.value === 'string' ? escapeHtml(node.value) : '';
  }
}

export function markdownToHtml(markdown: string): string {
  return render(parseMarkdown(markdown), new GithubSlugger());
}
