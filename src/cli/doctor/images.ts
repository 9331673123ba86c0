import type { Config } from '../../config/index.js';
import { runCommand } from '../../shell/run-command.js';
import type { Checks } from './checks.js';
import { invocation } from '../../invocation.js';

/** The program a shell command line starts (after any `NAME=value` assignments): what must be installed. */
const programOf = (command: string): string | undefined => /^\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*([^\s;&|()<>]+)/.exec(command)?.[1];

/** Where local images go, and whether the commands that publish them can run here (a missing one fails every new image). */
export async function checkImages(checks: Checks, config: Config): Promise<void> {
  const { upload, baseUrl, diagrams } = config.images;
  if (!upload && !baseUrl) {
    checks.pass('images', 'images: not published (no images.upload or images.baseUrl); local images are sent as written and reported (IMAGE_NOT_PUBLISHED)');
  } else if (upload) {
    await checkProgram(checks, 'images', 'images.upload', upload, 'every file with an image not uploaded yet would fail (IMAGE_UPLOAD_FAILED)');
  } else checks.pass('images', `images: mapped under ${baseUrl ?? ''} (no upload)`);
  if (!diagrams.command) return;
  if (!upload) {
    checks.warn('diagrams', 'images.diagrams.command is set but images.upload is not: rendered diagrams have nowhere to go, so they are sent as code', 'Set images.upload, or set images.diagrams.command to null.');
    return;
  }
  await checkProgram(checks, 'diagrams', 'images.diagrams.command', diagrams.command, 'every file with a diagram not rendered yet would fail (IMAGE_UPLOAD_FAILED)');
}

async function checkProgram(checks: Checks, name: string, setting: string, command: string, consequence: string): Promise<void> {
  const program = programOf(command);
  if (!program) return checks.warn(name, `${setting} does not start with a program kbsync can check`, 'Run it by hand on an image to be sure it prints the URL.');
  const found = await runCommand({ command: 'command -v -- "$1"', args: [program], env: invocation().env, timeoutMs: 5000 });
  if (found.ok && found.stdout.trim() !== '') checks.pass(name, `${setting}: ${program} is installed (${found.stdout.trim()})`);
  else checks.warn(name, `${setting} runs ${program}, which is not found on this machine's PATH: ${consequence}`, `Install ${program}, or fix ${setting}.`);
}
