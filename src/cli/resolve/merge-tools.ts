/** The four files a merge tool works on, as git mergetool names them. */
export type MergeFiles = { readonly BASE: string; readonly LOCAL: string; readonly REMOTE: string; readonly MERGED: string };

type KnownTool = {
  /** The program to run (looked up on PATH). */
  readonly program: string;
  /** The files, in the order and with the options this tool takes them (git's mergetools/<name>). */
  readonly args: (files: MergeFiles) => readonly string[];
  /** The tool returns at once unless its output is a pipe (opendiff): kbsync then reads it until it closes. */
  readonly waitsOnPipe?: true;
};

/** vim's layout from git's vimdiff: LOCAL, BASE and REMOTE on top, MERGED across the bottom, the cursor in it. */
const vimLayout = (files: MergeFiles): string[] => ['-d', '-c', '4wincmd w | wincmd J', files.LOCAL, files.BASE, files.REMOTE, files.MERGED];

/**
 * Merge tools by the names git mergetool knows them by, each with its files in that tool's conventional order,
 * so `--tool meld` works as `git mergetool --tool meld` does. The tool writes the result into MERGED.
 */
export const KNOWN_TOOLS: Readonly<Record<string, KnownTool>> = {
  meld: { program: 'meld', args: (f) => [`--output=${f.MERGED}`, f.LOCAL, f.BASE, f.REMOTE] },
  vimdiff: { program: 'vim', args: (f) => ['-f', ...vimLayout(f)] },
  gvimdiff: { program: 'gvim', args: (f) => ['-f', ...vimLayout(f)] },
  nvimdiff: { program: 'nvim', args: vimLayout },
  emerge: { program: 'emacs', args: (f) => ['-f', 'emerge-files-with-ancestor-command', f.LOCAL, f.REMOTE, f.BASE, f.MERGED] },
  kdiff3: { program: 'kdiff3', args: (f) => ['--auto', '--L1', 'base', '--L2', 'yours', '--L3', 'theirs (the knowledge base)', '-o', f.MERGED, f.BASE, f.LOCAL, f.REMOTE] },
  opendiff: { program: 'opendiff', args: (f) => [f.LOCAL, f.REMOTE, '-ancestor', f.BASE, '-merge', f.MERGED], waitsOnPipe: true },
  vscode: { program: 'code', args: (f) => ['--wait', '--merge', f.REMOTE, f.LOCAL, f.BASE, f.MERGED] },
  bc: { program: 'bcompare', args: (f) => [f.LOCAL, f.REMOTE, f.BASE, `-mergeoutput=${f.MERGED}`] },
  p4merge: { program: 'p4merge', args: (f) => [f.BASE, f.LOCAL, f.REMOTE, f.MERGED] },
  tkdiff: { program: 'tkdiff', args: (f) => ['-a', f.BASE, '-o', f.MERGED, f.LOCAL, f.REMOTE] },
  smerge: { program: 'smerge', args: (f) => ['mergetool', f.BASE, f.LOCAL, f.REMOTE, '-o', f.MERGED] },
  diffmerge: { program: 'diffmerge', args: (f) => ['--merge', `--result=${f.MERGED}`, f.LOCAL, f.BASE, f.REMOTE] },
};

/** Other names people type for the same tools. */
const ALIASES: Readonly<Record<string, string>> = { code: 'vscode', emacs: 'emerge', bc3: 'bc', bc4: 'bc', vim: 'vimdiff', nvim: 'nvimdiff', gvim: 'gvimdiff' };

const VARIABLES = /\$\{?(BASE|LOCAL|REMOTE|MERGED)\b/;

/** How `--tool` (or merge.tool) is run: a known tool with its files appended, or a shell command that names them itself. */
type ToolRun =
  | { readonly kind: 'known'; readonly name: string; readonly tool: KnownTool; /** Words given after the name (`meld --diff-only`…): passed before the files. */ readonly extra: readonly string[] }
  | { readonly kind: 'command'; readonly command: string }
  | { readonly kind: 'unknown'; readonly word: string };

/**
 * Reads `--tool`. A command that names $BASE, $LOCAL, $REMOTE or $MERGED runs through the shell with them in
 * its environment. One that names none would get no files at all (the double-quoted hint's fate: the shell
 * had expanded the variables to nothing), so its first word must be a tool kbsync knows, which then gets its
 * files in its own order; anything else is 'unknown' and refused.
 */
export function parseTool(given: string): ToolRun {
  const command = given.trim();
  if (VARIABLES.test(command)) return { kind: 'command', command };
  const [word = '', ...extra] = command.split(/\s+/);
  const name = ALIASES[word] ?? word;
  const tool = KNOWN_TOOLS[name];
  return tool ? { kind: 'known', name, tool, extra } : { kind: 'unknown', word };
}
