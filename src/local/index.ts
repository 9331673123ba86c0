// The local side: scanning, watching, reading and writing files safely. Re-exports only.
export { scanLocal, type LocalFile, type LocalScan, type ScanFs, type ScanSkip } from './scan.js';
export { ScanCache, type LocalScanner } from './scan-cache.js';
export { ScannedFiles } from './scanned.js';
export { PathFilter, type FilterOptions } from './path-filter.js';
export { LeftOut } from './left-out.js';
export { conflictCopyPath } from './names.js';
export { hashFile, hashText, sameFingerprint, statFingerprint, type FileFingerprint } from './fingerprint.js';
export { readTextFile, type TextFile } from './text-file.js';
export { writeFileAtomic } from './atomic-write.js';
export { backupText, moveToTrash } from './trash.js';
export { renameFile } from './rename.js';
export { explainFsError } from './fs-errors.js';
export { backupsSize, pruneBackups, type BackupRetention } from './backups.js';
export { ensureParentFolders, lstatOrNull, safeRelativePath } from './safe-path.js';
export { assertNarrowRoot, assertRootDirectorySync } from './root.js';
export { fileNameForTitle, safeName } from './safe-name.js';
