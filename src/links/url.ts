/** A link URL split the way a browser reads it: path, then `?query`, then `#fragment`. */
type SplitUrl = { readonly path: string; readonly fragment: string | undefined };

/** A scheme (`https:`, `mailto:`, `data:`) or a protocol-relative `//host`: another site, not a file here. */
export const isExternal = (url: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith('//');

export function splitUrl(url: string): SplitUrl {
  const hash = url.indexOf('#');
  const beforeHash = hash < 0 ? url : url.slice(0, hash);
  const query = beforeHash.indexOf('?');
  return { path: query < 0 ? beforeHash : beforeHash.slice(0, query), fragment: hash < 0 ? undefined : url.slice(hash + 1) };
}

/** Percent-decoding, or undefined for a malformed sequence (`%zz`, a broken UTF-8 run). */
export function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * A relative path written as a link destination: each segment percent-encoded (spaces, `#`, `?`, `%`,
 * parentheses and non-ASCII included), separators kept. The resolver's decoding is its inverse.
 */
export const encodeLinkPath = (path: string): string =>
  path
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[()*!']/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
