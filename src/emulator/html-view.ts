import type { ServerResponse } from 'node:http';
import { sendHtml } from './http.js';
import { escapeHtml, markdownToHtml } from './markdown/to-html.js';
import type { Runtime } from './runtime.js';
import type { NodeRow } from './store/types.js';
import { nodeView, workspaceUrl } from './views.js';

function page(title: string, content: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:sans-serif;max-width:50em;margin:2em auto;padding:0 1em}nav{color:#666}</style></head>
<body>${content}</body></html>
`;
}

function childList(rt: Runtime, parentId: string): string {
  const items = rt.store.children(parentId).map((child) => {
    const view = nodeView(child, rt.store, rt.baseUrl);
    const icon = child.docType === 'FOLDER' ? '📁 ' : '';
    return `<li>${icon}<a href="${escapeHtml(String(view['url']))}">${escapeHtml(String(view['name']))}</a></li>`;
  });
  return items.length === 0 ? '<p><em>(empty)</em></p>' : `<ul class="children">${items.join('')}</ul>`;
}

function nodePage(rt: Runtime, node: NodeRow): string {
  const workspace = rt.store.workspace(node.workspaceId);
  const nav = `<nav><a href="${escapeHtml(workspaceUrl(rt.baseUrl, node.workspaceId))}">${escapeHtml(workspace?.name ?? '')}</a></nav>`;
  const heading = `<h1 class="title">${escapeHtml(node.title)}</h1>`;
  const body = node.docType === 'DOC' ? `<article>${markdownToHtml(rt.store.markdown(node.dentryUuid) ?? '')}</article>` : '';
  const children = node.docType === 'DOC' && !rt.store.hasChildren(node.dentryUuid) ? '' : childList(rt, node.dentryUuid);
  return page(node.title, `${nav}${heading}${body}${children}`);
}

/** The read-only web pages behind every node and workspace `url`; no token needed, as a browser opens them. */
export function handleView(rt: Runtime, res: ServerResponse, pathname: string): void {
  const match = /^\/i\/(nodes|spaces)\/([^/]+)\/?$/.exec(pathname);
  let id = '';
  try {
    id = decodeURIComponent(match?.[2] ?? '');
  } catch {
    id = '';
  }
  if (match?.[1] === 'spaces') {
    const workspace = rt.store.workspace(id);
    if (workspace) {
      return sendHtml(res, 200, page(workspace.name, `<h1 class="title">${escapeHtml(workspace.name)}</h1><p>${escapeHtml(workspace.description)}</p>${childList(rt, workspace.rootNodeId)}`));
    }
  } else if (match) {
    const node = rt.store.node(id);
    if (node) return sendHtml(res, 200, nodePage(rt, node));
  }
  sendHtml(res, 404, page('Not found', `<h1>Not found</h1><p>No page at ${escapeHtml(pathname)}.</p>`));
}
