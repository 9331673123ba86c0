// Shared by the CLI's bundle (bundle.mjs) and the tests' (build-tests.mjs).
// A module that loads a package on first use declares `const require = createRequire(import.meta.url)` (the
// way an ES module can require at all). Loaded so, a package is read from node_modules one file at a time
// when first used: the Markdown parser's hundred-odd small modules cost 70 ms of CPU that way, 7 ms
// bundled. In a bundle that declaration is dropped, so each require() is the bundle's own: esbuild puts the
// package in the bundle and runs it on its first require(), as lazily as before; an external package is
// still required from node_modules, through the `require` the banner gives a test bundle (an ES module) or
// the one src/cli/code-cache.ts hands the CLI's (a CommonJS script).

const OWN_REQUIRE = 'const require = createRequire(import.meta.url);';

/** Bundled CommonJS code and external packages call require(); the banner gives an ES bundle one. */
export const REQUIRE_BANNER = "import { createRequire as __kbsyncRequire } from 'node:module'; const require = __kbsyncRequire(import.meta.url);";

/**
 * The source of `path` with its own require dropped. Any other require made from the module's own place fails
 * the build, so no module silently keeps the slow path. (A require made for another file, the one
 * src/cli/code-cache.ts hands the bundle, is not a module's own.)
 * @param {string} path @param {string} text @returns {string}
 */
export function withBundledRequires(path, text) {
  const own = 'createRequire(import.meta.url)';
  if (!text.includes(own)) return text;
  const rest = text.replace(OWN_REQUIRE, '');
  if (rest === text || rest.includes(own)) {
    throw new Error(`${path}: a module that requires declares \`${OWN_REQUIRE}\` once and uses that require (scripts/bundled-requires.mjs)`);
  }
  return rest;
}
