import path from 'node:path';

/** A relative path in the form kbsync stores and compares: POSIX separators. */
export function toPosix(rel: string): string {
  return path.sep === '/' ? rel : rel.split(path.sep).join('/');
}

/** True when `target` (absolute) is `root` or lies below it. */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}
