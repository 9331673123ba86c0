import { Option } from 'commander';
import { InputError } from '../../errors.js';
import { invocation } from '../../invocation.js';

/** How a command reports: lines for people, one JSON document for scripts, or GitHub Actions annotations and a job summary. */
export type OutputFormat = 'text' | 'json' | 'github';

export const outputFormatOption = (): Option =>
  new Option('--output-format <format>', 'text, json, or github (annotations and a job summary; the default under GitHub Actions)').choices(['text', 'json', 'github']);

/** `--json` is `--output-format json`; under GitHub Actions (GITHUB_ACTIONS=true) the default is `github`. */
export function outputFormatOf(flags: { readonly json?: boolean; readonly outputFormat?: string }, env: NodeJS.ProcessEnv = invocation().env): OutputFormat {
  if (flags.json && flags.outputFormat !== undefined && flags.outputFormat !== 'json') {
    throw new InputError('USAGE', `--json and --output-format ${flags.outputFormat} ask for two formats.`, { hint: 'Pass one of them.' });
  }
  if (flags.json) return 'json';
  if (flags.outputFormat === 'text' || flags.outputFormat === 'json' || flags.outputFormat === 'github') return flags.outputFormat;
  return env['GITHUB_ACTIONS'] === 'true' ? 'github' : 'text';
}
