// The local side: scanning, watching, reading and writing files safely. Re-exports only.
export { scanLocal, type LocalFile, type LocalScan, type ScanFs, type ScanOptions, type ScanProblem, type ScanSkip } from './scan.js';
export { ScanCache, type LocalScanner } from './scan-cache.js';
export { DEFAULT_INCLUDE, PathFilter, type FileVerdict, type FilterOptions } from './path-filter.js';
export { IgnoreTree } from './ignore-tree.js';
export {
  DEFAULT_STATE_DIR,
  IGNORE_FILE_NAME,
  KBSYNC_TEMP_PREFIX,
  conflictCopyPath,
  isConflictCopyName,
  isTransientFileName,
} from './names.js';
export { hashFile, hashText, sameFingerprint, statFingerprint, type FileFingerprint } from './fingerprint.js';
export {
  MAX_BODY_CHARS,
  MAX_FILE_BYTES,
  decodeText,
  encodeText,
  readTextFile,
  type LineEnding,
  type ReadTextOptions,
  type TextFile,
} from './text-file.js';
export { writeFileAtomic, type WriteOptions } from './atomic-write.js';
export { backupText, moveToTrash } from './trash.js';
export { renameFile } from './rename.js';
export { explainFsError } from './fs-errors.js';
export { backupsSize, pruneBackups, type BackupRetention } from './backups.js';
export type { Expectation } from './expect.js';
export { ensureParentFolders, lstatOrNull, safeRelativePath } from './safe-path.js';
export { assertNarrowRoot, assertRootDirectory, assertRootDirectorySync } from './root.js';
export { MAX_NAME_BYTES, fileNameForTitle, safeName, type SafeNameOptions } from './safe-name.js';
export { pathKey } from './paths.js';
