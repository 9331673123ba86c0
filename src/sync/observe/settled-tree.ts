import { createHash } from 'node:crypto';
import type { LocalFile, LocalScan } from '../../local/index.js';

/**
 * A push that lists nothing decides from three things only: the scan (which files, with which stat), the
 * options, and the ledger. When one such push found every file settled (decide/settled.ts) and every row's
 * file there, and planned nothing, its scan and options are kept as one fingerprint in the ledger
 * (ledger/settled-tree.ts); the ledger's triggers drop it on any change to the ledger itself. A later push
 * whose scan and options give the same fingerprint would therefore decide exactly the same nothing, so it
 * skips what a settled tree costs per file: no row is read, no file entry or record is built.
 *
 * The stat is the same evidence the per-file fast path trusts (size, mtime, inode): a file edited in place
 * within the same mtime tick to the same size is missed by both, and by git's index alike.
 */
export function treeFingerprint(scan: LocalScan, options: FingerprintOptions): string | undefined {
  // An incomplete scan proves nothing about the files it could not reach.
  if (!scan.complete || options.listRemote !== 'if-needed') return undefined;
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify({
      v: 1,
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
    }),
  );
  // Built as one string per list: a hash update per file would cost more than the walk's own stat.
  hash.update(`\nfiles\n${scan.files.map(statLine).join('')}`);
  hash.update(`\ncopies\n${scan.conflictCopies.map(statLine).join('')}`);
  hash.update(`\nfolders\n${scan.folders.join('\n')}`);
  hash.update(`\nskipped\n${scan.skipped.map((skip) => `${skip.path}\0${skip.code ?? ''}\0${skip.reason}\n`).join('')}`);
  return hash.digest('base64url');
}

/** The options a push's plan depends on besides its scan and its ledger (observe.ts's ObserveOptions has them all). */
export type FingerprintOptions = {
  readonly stateDir: string;
  readonly workspaceId: string;
  readonly remoteFolder?: string | undefined;
  readonly layout: string;
  readonly mode: string;
  readonly include?: readonly string[] | undefined;
  readonly exclude?: readonly string[] | undefined;
  readonly guards: { readonly maxDeleteRatio: number; readonly maxDeletes: number; readonly force: boolean };
  readonly retitle?: boolean | undefined;
  readonly listRemote: string;
};

const statLine = (file: LocalFile): string => `${file.path}\0${file.size}\0${file.mtimeMs}\0${file.ino}\0${file.dev}\n`;
