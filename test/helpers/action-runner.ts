import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The repository root: where action.yml lives, and what a runner checks out as GITHUB_ACTION_PATH. */
export const actionPath = fileURLToPath(new URL('../../', import.meta.url));

type Step = { readonly name?: string; readonly id?: string; readonly run?: string; readonly uses?: string; readonly shell?: string; readonly env?: Record<string, string>; readonly if?: string };
export type ActionFile = {
  readonly inputs: Record<string, { readonly default?: string; readonly description?: string }>;
  readonly outputs?: Record<string, { readonly value: string }>;
  readonly runs: { readonly using: string; readonly steps: readonly Step[] };
};

export const readAction = async (): Promise<ActionFile> => parse(await readFile(join(actionPath, 'action.yml'), 'utf8')) as ActionFile;

export type ActionRun = {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** What the steps appended to $GITHUB_STEP_SUMMARY. */
  readonly summary: string;
  /** What the steps wrote to $GITHUB_OUTPUT. */
  readonly outputs: Readonly<Record<string, string>>;
  /** `uses:` steps a runner would run and this one cannot (they install tools the machine already has). */
  readonly skipped: readonly string[];
};

/**
 * Runs a composite action's `run:` steps the way a GitHub runner does: each script through
 * `bash --noprofile --norc -eo pipefail`, in the workspace, with the runner's variables (GITHUB_ACTIONS,
 * GITHUB_ACTION_PATH, GITHUB_WORKSPACE, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, RUNNER_TEMP, INPUT_*) and
 * `${{ inputs.* }}` expanded in `env:`. Only the expressions action.yml may use are understood; any
 * other is an error, so the action cannot rely on something this harness fakes.
 */
export async function runAction(inputs: Readonly<Record<string, string>>, workspace: string): Promise<ActionRun> {
  const action = await readAction();
  if (action.runs.using !== 'composite') throw new Error(`action.yml: expected a composite action, got ${action.runs.using}`);
  const temp = await mkdtemp(join(tmpdir(), 'kbsync-runner-'));
  const summaryFile = join(temp, 'step-summary.md');
  const outputFile = join(temp, 'output.txt');
  await writeFile(summaryFile, '');
  await writeFile(outputFile, '');
  const values = Object.fromEntries(Object.entries(action.inputs).map(([name, spec]) => [name, inputs[name] ?? spec.default ?? '']));
  for (const name of Object.keys(inputs)) if (!(name in action.inputs)) throw new Error(`action.yml has no input "${name}"`);
  const expand = (text: string): string =>
    text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
      const input = /^inputs\.([\w-]+)$/.exec(expression);
      if (input) return values[input[1] as string] ?? '';
      if (expression === 'github.action_path') return actionPath;
      throw new Error(`action.yml uses an expression the local runner does not know: ${expression}`);
    });
  const runnerEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('KBSYNC_') && !name.startsWith('GITHUB_')));
  const base: Record<string, string | undefined> = {
    ...runnerEnv,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_ACTION_PATH: actionPath,
    GITHUB_WORKSPACE: workspace,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_OUTPUT: outputFile,
    RUNNER_TEMP: temp,
    ...Object.fromEntries(Object.entries(values).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value])),
  };
  let stdout = '';
  let stderr = '';
  let code: number | null = 0;
  const skipped: string[] = [];
  try {
    for (const [index, step] of action.runs.steps.entries()) {
      if (step.uses !== undefined) {
        skipped.push(step.uses);
        continue;
      }
      if (step.run === undefined) throw new Error(`action.yml step ${index} has neither run nor uses`);
      if (step.shell !== 'bash') throw new Error(`action.yml step ${index}: composite run steps need shell: bash`);
      if (step.if !== undefined) throw new Error(`action.yml step ${index}: the local runner does not evaluate if: on run steps`);
      const script = join(temp, `step-${index}.sh`);
      await writeFile(script, step.run);
      const env = { ...base, ...Object.fromEntries(Object.entries(step.env ?? {}).map(([name, value]) => [name, expand(String(value))])) };
      const result = await bash(script, workspace, env);
      stdout += result.stdout;
      stderr += result.stderr;
      code = result.code;
      if (code !== 0) break;
    }
    const outputs = Object.fromEntries(
      (await readFile(outputFile, 'utf8'))
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    return { code, stdout, stderr, summary: await readFile(summaryFile, 'utf8'), outputs, skipped };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

function bash(script: string, cwd: string, env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
