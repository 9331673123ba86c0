import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE_NAME, ConfigSchema, loadConfig, type ConfigInput, type LoadedConfig } from '../config/index.js';
import { describeIssues } from '../config/issues.js';
import { InputError } from '../errors.js';
import { writeFileAtomic } from '../local/index.js';
import { invocation } from '../invocation.js';

/**
 * Writes `<dir>/sync.config.json` for `init`, `clone` and `demo`: validated before writing, never over an
 * existing file unless `force`, written atomically, then loaded back exactly as `kbsync sync` will load it.
 */
export async function writeNewConfig(dir: string, config: ConfigInput, options: { readonly force: boolean }): Promise<LoadedConfig> {
  const parsed = ConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new InputError('CONFIG_INVALID', 'The configuration to write is not valid:', {
      details: describeIssues(parsed.error.issues, config, new Map()).map((line) => `  ${line}`),
      hint: 'Fix the options above.',
    });
  }
  const file = path.join(dir, CONFIG_FILE_NAME);
  await refuseExistingConfig(dir, options);
  await fsp.mkdir(dir, { recursive: true });
  await writeFileAtomic(dir, CONFIG_FILE_NAME, `${JSON.stringify(config, null, 2)}\n`);
  // The file alone, without this shell's KBSYNC_* overrides: what was written must stand on its own.
  return loadConfig({ path: file, cwd: dir, env: { HOME: invocation().env['HOME'] } });
}

/** Refuses early (before any call to the service) to replace a config file unless `force`. */
export async function refuseExistingConfig(dir: string, options: { readonly force: boolean }): Promise<void> {
  const file = path.join(dir, CONFIG_FILE_NAME);
  if (options.force || !(await exists(file))) return;
  throw new InputError('CONFIG_EXISTS', `${file} already exists; kbsync did not change it.`, {
    hint: 'Edit it, remove it, or run again with --force to replace it.',
  });
}

const exists = (file: string): Promise<boolean> =>
  fsp.access(file).then(
    () => true,
    () => false,
  );
