#!/usr/bin/env node
// `npm run check`: `npm run typecheck` and `npm run lint` in one process, sharing one TypeScript program. The
// lint's type-aware rules (no-floating-promises, no-misused-promises) need the types of every file, and
// typescript-eslint otherwise builds a program of its own: the two took 20 + 34 s of CPU one after the other,
// 38 s together (npm test runs this beside the tests). Prints what each would, and fails if either would.
import ts from 'typescript';
import { ESLint } from 'eslint';

/** @type {ts.FormatDiagnosticsHost} */
const host = { getCanonicalFileName: (name) => name, getCurrentDirectory: ts.sys.getCurrentDirectory, getNewLine: () => ts.sys.newLine };
const config = ts.getParsedCommandLineOfConfigFile('tsconfig.json', {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) });
if (!config) process.exit(2);
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options, configFileParsingDiagnostics: config.errors });
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) process.stdout.write(ts.formatDiagnostics(diagnostics, host));

// eslint.config.js as `eslint .` reads it, but with this program instead of the project service's.
const eslint = new ESLint({ overrideConfig: { languageOptions: { parserOptions: { projectService: false, programs: [program] } } } });
const results = await eslint.lintFiles(['.']);
const report = await (await eslint.loadFormatter('stylish')).format(results);
if (report !== '') process.stdout.write(report);
process.exit(diagnostics.length > 0 || results.some((result) => result.errorCount > 0) ? 1 : 0);

/** @param {readonly ts.Diagnostic[]} found @returns {never} */
function fail(found) {
  process.stdout.write(ts.formatDiagnostics(found, host));
  process.exit(2);
}
