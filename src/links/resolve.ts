import { posix } from 'node:path';
import type { LinkOutcome, LinkSite, LinkTree } from './types.js';
import { decode, isExternal, splitUrl } from './url.js';

/** What a folder link (`guides/`, `/commands`) opens on a docs site, in the order generators look. */
const INDEX_FILES = ['index.md', 'README.md', 'readme.md', '_index.md'];

/**
 * Resolves one link URL written in `from` (a path relative to the synced root) against the local tree,
 * the way a docs site resolves it: relative or site-absolute, with or without `.md` (or `.html`), a
 * folder to its index page, percent-encoding decoded, `#anchor` matched to a heading of the target.
 * Pure: the tree is all it knows. A resolved path is always a synced file, so never outside the root.
 */
export function resolveLink(url: string, from: string, tree: LinkTree, site: LinkSite): LinkOutcome {
  const written = url.trim();
  if (written === '' || isExternal(written)) return { kind: 'external' };
  const { path: rawPath, fragment: rawFragment } = splitUrl(written);
  const fragment = rawFragment === undefined || rawFragment === '' ? undefined : decode(rawFragment);
  if (rawFragment && fragment === undefined) return broken('malformed', `"#${rawFragment}" is not valid percent-encoding`);
  if (rawPath === '') {
    if (fragment === undefined) return { kind: 'external' };
    return anchorIn(from, fragment, tree, true);
  }
  const decoded = decode(rawPath);
  if (decoded === undefined) return broken('malformed', `"${rawPath}" is not valid percent-encoding`);
  const located = locate(decoded, from, site);
  if ('outside' in located) return broken('outside-root', located.outside);
  const found = candidates(located.path, located.folder).find((candidate) => tree.synced.has(candidate));
  if (found === undefined) return notFound(located.path, located.folder, tree);
  return fragment === undefined ? { kind: 'file', path: found } : anchorIn(found, fragment, tree, false);
}

type Located = { readonly path: string; readonly folder: boolean } | { readonly outside: string };

/** The path a URL names, relative to the synced root, or why it names nothing inside it. */
export function locate(decoded: string, from: string, site: LinkSite): Located {
  let joined: string;
  if (decoded.startsWith('/')) {
    const base = site.basePath;
    const underBase = base === '/' || decoded.startsWith(base) || `${decoded}/` === base;
    if (!underBase) return { outside: `it is a site-absolute link outside the site's base path ${base}` };
    joined = posix.join(site.root === '' ? '.' : site.root, decoded.slice(Math.min(decoded.length, base.length - 1)));
  } else {
    joined = posix.join(posix.dirname(from), decoded);
  }
  const folder = /\/$/.test(decoded) || joined === '.' || /(^|\/)\.{1,2}$/.test(decoded);
  const path = posix.normalize(joined).replace(/\/+$/, '');
  if (path === '..' || path.startsWith('../') || path.startsWith('/')) return { outside: 'it points outside the synced folder' };
  return { path: path === '.' ? '' : path, folder };
}

/** The files a docs site would serve for a path, best first. */
function candidates(path: string, folder: boolean): string[] {
  const indexes = INDEX_FILES.map((name) => (path === '' ? name : `${path}/${name}`));
  if (folder || path === '') return indexes;
  if (/\.md$/i.test(path)) return [path];
  const html = /\.html?$/i.exec(path);
  if (html) {
    const stem = path.slice(0, html.index);
    return posix.basename(stem) === 'index' ? [`${stem}.md`, ...candidates(posix.dirname(stem) === '.' ? '' : posix.dirname(stem), true)] : [`${stem}.md`];
  }
  return [`${path}.md`, ...indexes];
}

function notFound(path: string, folder: boolean, tree: LinkTree): LinkOutcome {
  const shown = path === '' ? 'the synced folder' : path;
  const there = [path, ...candidates(path, folder)].find((candidate) => candidate !== '' && tree.exists(candidate));
  if (there !== undefined) return broken('not-synced', `${there} is not published: ${tree.unsynced?.(there) ?? 'it is not one of the synced Markdown files'}`);
  return broken('missing', `there is no ${folder ? 'index page in' : 'file'} ${shown}${folder ? '' : ' (nor with .md, nor a folder index)'}`);
}

function anchorIn(path: string, fragment: string, tree: LinkTree, self: boolean): LinkOutcome {
  const anchors = tree.anchors(path);
  if (anchors === undefined) return self ? { kind: 'self', anchor: fragment } : { kind: 'file', path, anchor: fragment };
  const anchor = anchors.get(fragment) ?? anchors.get(fragment.toLowerCase());
  if (anchor === undefined) {
    const missing = broken('anchor-missing', `${self ? 'this file' : path} has no heading with the anchor #${fragment}`);
    // Another file is still reached without the anchor (its URL goes in). An anchor of this file, left as written,
    // still opens this page: it needs no URL, so it never waits for one (a renamed or moved page would be sent
    // again only to swap `#nope` for its own address).
    return self ? missing : { ...missing, path };
  }
  return self ? { kind: 'self', anchor } : { kind: 'file', path, anchor };
}

const broken = (reason: Extract<LinkOutcome, { kind: 'broken' }>['reason'], detail: string): Extract<LinkOutcome, { kind: 'broken' }> => ({ kind: 'broken', reason, detail });
