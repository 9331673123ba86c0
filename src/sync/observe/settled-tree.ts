import { createHash, type Hash } from 'node:crypto';
import type { LocalFile, LocalScan } from '../../local/index.js';
import type { ObserveOptions } from './options.js';

/**
 * A push that lists nothing decides from three things only: the scan (which files, with which stat), the
 * options, and the ledger. When one such push found every file settled (decide/settled.ts) and every row's
 * file there, and planned nothing, its scan and options are kept as one fingerprint in the ledger
 * (ledger/settled-tree.ts); the ledger's triggers drop it on any change to the ledger itself. A later push
 * whose scan and options give the same fingerprint would therefore decide exactly the same nothing, so it
 * skips what a settled tree costs per file: no row is read, no file entry or record is built.
 *
 * The stat is the same evidence the per-file fast path trusts (size, mtime, inode): a file edited in place
 * within the same mtime tick to the same size is missed by both, and by git's index alike. kbsync's version
 * is part of it, so an upgrade whose planner decides differently never inherits an older one's verdict.
 */
export function treeFingerprint(scan: LocalScan, options: FingerprintOptions, version: string): string | undefined {
  // An incomplete scan proves nothing about the files it could not reach.
  if (!scan.complete) return undefined;
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify({
      v: 1,
      kbsync: version,
      root: scan.root,
      rootDev: scan.rootDev,
      rootIno: scan.rootIno,
      stateDir: options.stateDir,
      workspaceId: options.workspaceId,
      remoteFolder: options.remoteFolder ?? null,
      layout: options.layout,
      mode: options.mode,
      include: options.include ?? null,
      exclude: options.exclude ?? null,
      guards: options.guards,
      retitle: options.retitle ?? false,
      vault: options.vault ?? null,
    }),
  );
  hashStats(hash, 'files', scan.files);
  hashStats(hash, 'copies', scan.conflictCopies);
  hash.update(`\nfolders\n${scan.folders.join('\n')}`);
  hash.update(`\nskipped\n${scan.skipped.map((skip) => `${skip.path}\0${skip.code ?? ''}\0${skip.reason}\n`).join('')}`);
  return hash.digest('base64url');
}

/** The options a push's plan depends on besides its scan and its ledger. */
type FingerprintOptions = Pick<ObserveOptions, 'stateDir' | 'workspaceId' | 'remoteFolder' | 'layout' | 'mode' | 'include' | 'exclude' | 'guards' | 'retitle' | 'vault'>;

/** Room for a path's UTF-8 bytes (a path's characters take at most 3 bytes each) and its four numbers. */
const BATCH_BYTES = 64 * 1024;
const NUMBERS = 4 * 8;

/**
 * Each file's path, size, mtime, inode and device, written into one reused buffer and hashed a batch at a
 * time: a string per file was most of the fingerprint's cost, and garbage for every file of the tree.
 */
function hashStats(hash: Hash, label: string, files: readonly LocalFile[]): void {
  hash.update(`\n${label} ${files.length}\n`);
  let batch = Buffer.allocUnsafe(BATCH_BYTES);
  let at = 0;
  for (const file of files) {
    const room = file.path.length * 3 + 4 + NUMBERS;
    if (at + room > batch.length) {
      hash.update(batch.subarray(0, at));
      at = 0;
      if (room > batch.length) batch = Buffer.allocUnsafe(room);
    }
    const bytes = batch.write(file.path, at, 'utf8');
    at = batch.writeUInt32LE(bytes, at + bytes);
    at = batch.writeDoubleLE(file.size, at);
    at = batch.writeDoubleLE(file.mtimeMs, at);
    at = batch.writeDoubleLE(file.ino, at);
    at = batch.writeDoubleLE(file.dev, at);
  }
  hash.update(batch.subarray(0, at));
}
