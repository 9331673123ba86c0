import type { Nodes } from 'mdast';
import { parseMarkdown } from './parse.js';

/** Escapes text for HTML content and attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Only web and mail links survive; `javascript:` and friends become a dead link. */
function safeUrl(url: string): string {
  return /^(https?:|mailto:|#|\/|\.{0,2}\/?[\w-])/i.test(url) && !/^\s*(javascript|data|vbscript):/i.test(url) ? url : '#';
}

const children = (node: Nodes & { children: readonly Nodes[] }): string => node.children.map((child) => render(child, node.type)).join('');

/** Phrasing containers: raw HTML inside them is inline text, elsewhere a block. */
const INLINE_PARENTS = new Set(['paragraph', 'heading', 'emphasis', 'strong', 'delete', 'link', 'linkReference', 'tableCell']);

/** A tiny mdast → HTML renderer for the read-only web view. Raw HTML in the Markdown is shown as text. */
function render(node: Nodes, parentType?: string): string {
  switch (node.type) {
    case 'root':
      return children(node);
    case 'heading':
      return `<h${node.depth}>${children(node)}</h${node.depth}>\n`;
    case 'paragraph':
      return `<p>${children(node)}</p>\n`;
    case 'text':
      return escapeHtml(node.value);
    case 'emphasis':
      return `<em>${children(node)}</em>`;
    case 'strong':
      return `<strong>${children(node)}</strong>`;
    case 'delete':
      return `<del>${children(node)}</del>`;
    case 'inlineCode':
      return `<code>${escapeHtml(node.value)}</code>`;
    case 'break':
      return '<br>';
    case 'link':
      return `<a href="${escapeHtml(safeUrl(node.url))}">${children(node)}</a>`;
    case 'image':
      return `<img src="${escapeHtml(safeUrl(node.url))}" alt="${escapeHtml(node.alt ?? '')}">`;
    case 'code':
      return `<pre><code>${escapeHtml(node.value)}</code></pre>\n`;
    case 'html':
      return parentType !== undefined && INLINE_PARENTS.has(parentType) ? escapeHtml(node.value) : `<pre class="raw-html">${escapeHtml(node.value)}</pre>\n`;
    case 'blockquote':
      return `<blockquote>${children(node)}</blockquote>\n`;
    case 'list': {
      const tag = node.ordered ? 'ol' : 'ul';
      return `<${tag}>${children(node)}</${tag}>\n`;
    }
    case 'listItem':
      return `<li>${node.checked === null || node.checked === undefined ? '' : node.checked ? '[x] ' : '[ ] '}${children(node)}</li>`;
    case 'thematicBreak':
      return '<hr>\n';
    case 'table':
      return `<table>${children(node)}</table>\n`;
    case 'tableRow':
      return `<tr>${children(node)}</tr>`;
    case 'tableCell':
      return `<td>${children(node)}</td>`;
    default:
      if ('children' in node) return children(node);
      return 'value' in node && typeof node.value === 'string' ? escapeHtml(node.value) : '';
  }
}

export function markdownToHtml(markdown: string): string {
  return render(parseMarkdown(markdown));
}
