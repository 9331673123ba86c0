import { KbsyncError } from '../errors.js';
import { REFUSED_VALUE_HINT } from './errors.js';

/**
 * Ledger keys are paths relative to the sync root with POSIX separators, exactly one spelling per file:
 * no leading '/', no '\\', no empty, '.' or '..' segments. The ledger checks the form and never rewrites
 * a path, so that a lookup with the same string always finds the same row.
 */
export function checkRelativePath(what: string, path: unknown, options: { allowRoot?: boolean } = {}): string {
  if (typeof path !== 'string') throw badPath(what, path, 'it is not a string');
  if (path === '') {
    if (options.allowRoot) return path;
    throw badPath(what, path, 'it is empty');
  }
  if (path.includes('\\')) throw badPath(what, path, "it contains '\\' (use '/' as the separator)");
  if (path.includes('\0')) throw badPath(what, path, 'it contains a NUL character');
  if (path.startsWith('/')) throw badPath(what, path, 'it is absolute (it must be relative to the sync root)');
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw badPath(what, path, `it has an empty, '.' or '..' segment`);
    }
  }
  return path;
}

function badPath(what: string, path: unknown, why: string): KbsyncError {
  return new KbsyncError('LEDGER_INVALID_PATH', `The ledger was given ${what} ${JSON.stringify(path)}, but ${why}.`, {
    hint: `Ledger paths are relative to the sync root with / separators. ${REFUSED_VALUE_HINT}`,
  });
}
