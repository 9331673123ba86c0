#!/usr/bin/env node
// `npm pack` (and `npm publish`) runs this before and after it makes the tarball (package.json's prepack and
// postpack). A clone builds kbsync through `prepare` (`npm ci`, `npm install`, an install from git); a
// tarball holds the build already, and npm names every package whose manifest has an install-time script
// (`prepare` among them) in its "install scripts not yet covered by allowScripts" warning, though it never
// runs a tarball's `prepare`. So the packed package.json is this one without those scripts:
//   --strip    builds unless dist/ holds a build of the current sources (npm no longer runs `prepare` for the
//              pack once it is gone), then writes package.json without its install-time scripts, the
//              original kept beside it;
//   --restore  puts the original back (a pack that died before it is restored by the next --strip).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MANIFEST = 'package.json';
/** The manifest as it is in the repository while the packed one stands in its place (.gitignore has it; `files` leaves it out). */
const KEPT = '.package.json.unpacked';
/** What npm runs when it installs a package; `prepare` only in a clone or from git, but it warns of it all the same. */
const INSTALL_TIME = ['preinstall', 'install', 'postinstall', 'prepare'];
/** What the build reads, and the first thing it writes (`build` empties dist/ first). */
const BUILD_INPUTS = ['src', 'scripts/build.mjs', 'scripts/bundle.mjs', 'scripts/bundled-requires.mjs', 'tsconfig.json', 'tsconfig.base.json', 'tsconfig.build.json', 'package-lock.json'];
const BUILD_OUTPUTS = ['dist/index.js', 'dist/cli/bundle/kbsync.cjs'];

/** The newest modification time of a file, or of any file in a folder. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function built() {
  if (!BUILD_OUTPUTS.every((path) => existsSync(path))) return false;
  const oldestOutput = Math.min(...BUILD_OUTPUTS.map((path) => statSync(path).mtimeMs));
  return Math.max(...BUILD_INPUTS.filter((path) => existsSync(path)).map(newest)) <= oldestOutput;
}

/** Replaces a file whole (a reader beside the pack, such as knip during `npm test`, never sees half of one). */
function replace(path, text) {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

function restore() {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
}

const [mode] = process.argv.slice(2);
if (mode === '--restore') restore();
else if (mode === '--strip') {
  restore();
  if (!built()) {
    const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  const text = readFileSync(MANIFEST, 'utf8');
  const manifest = JSON.parse(text);
  const scripts = Object.fromEntries(Object.entries(manifest.scripts ?? {}).filter(([name]) => !INSTALL_TIME.includes(name)));
  writeFileSync(KEPT, text);
  replace(MANIFEST, `${JSON.stringify({ ...manifest, scripts }, null, 2)}\n`);
} else {
  console.error('usage: node scripts/pack-manifest.mjs --strip | --restore');
  process.exit(2);
}
