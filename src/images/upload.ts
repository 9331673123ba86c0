import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { runCommand } from '../shell/run-command.js';
import { SNIFF_BYTES, mediaTypeOf, sniffImageType } from './media-type.js';
import type { ImageSettings } from './types.js';

/** Why an upload or a render did not give a URL, in words for the person who configured it. */
export class UploadFailure extends Error {}

/**
 * Runs `images.upload` for one file and returns the URL it printed (its last non-empty line). The command
 * gets the file, its SHA-256 and media type as $1 $2 $3 and as variables, plus a content-addressed name
 * (`KBSYNC_IMAGE_KEY`, `<sha256>.<ext>`) so the same bytes always land at the same place.
 */
export async function uploadImage(
  settings: ImageSettings,
  file: { readonly absolute: string; readonly hash: string },
  root: string,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<string> {
  const command = settings.upload as string;
  const type = mediaTypeOf(file.absolute);
  const outcome = await runCommand({
    command,
    name: 'kbsync-upload',
    args: [file.absolute, file.hash, type],
    env: {
      ...env,
      KBSYNC_IMAGE_PATH: file.absolute,
      KBSYNC_IMAGE_SHA256: file.hash,
      KBSYNC_IMAGE_TYPE: type,
      KBSYNC_IMAGE_KEY: `${file.hash}${extname(file.absolute).toLowerCase()}`,
      KBSYNC_IMAGE_NAME: basename(file.absolute),
    },
    timeoutMs: settings.timeoutMs,
    cwd: root,
    keepChars: 4000,
    ...(signal ? { signal } : {}),
  });
  if (!outcome.ok) throw new UploadFailure(`the upload command failed: ${outcome.failure}`);
  const last = outcome.stdout.split('\n').map((line) => line.trim()).filter((line) => line !== '').at(-1);
  if (last === undefined) throw new UploadFailure('the upload command printed no URL (it must print the public URL as its last line)');
  if (!isPublicUrl(last)) throw new UploadFailure(`the upload command's last line is not an http(s) URL: ${JSON.stringify(last.slice(0, 200))}`);
  return last;
}

function isPublicUrl(text: string): boolean {
  if (/\s/.test(text)) return false;
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Renders one diagram with `images.diagrams.command` into a temporary folder, then hands the image to
 * `upload`. The folder is removed whatever happens.
 */
export async function renderAndUpload(
  settings: ImageSettings,
  diagram: { readonly language: string; readonly source: string },
  upload: (file: { readonly absolute: string; readonly hash: string }) => Promise<string>,
  root: string,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'kbsync-diagram-'));
  try {
    const input = join(folder, `diagram.${diagram.language.replace(/[^A-Za-z0-9_-]/g, '') || 'txt'}`);
    const output = join(folder, `diagram.${settings.diagrams.format}`);
    await writeFile(input, diagram.source, 'utf8');
    const outcome = await runCommand({
      command: settings.diagrams.command as string,
      name: 'kbsync-render',
      args: [input, output, diagram.language],
      env: { ...env, KBSYNC_DIAGRAM_INPUT: input, KBSYNC_DIAGRAM_OUTPUT: output, KBSYNC_DIAGRAM_LANGUAGE: diagram.language },
      timeoutMs: settings.timeoutMs,
      cwd: root,
      ...(signal ? { signal } : {}),
    });
    if (!outcome.ok) throw new UploadFailure(`the diagram command failed: ${outcome.failure}`);
    const size = await stat(output).then((s) => (s.isFile() ? s.size : 0)).catch(() => 0);
    if (size === 0) throw new UploadFailure(`the diagram command wrote no image to $2 (${output})`);
    const bytes = await readFile(output);
    // Only an image goes to images.upload, whoever made the file.
    if (!sniffImageType(bytes.subarray(0, SNIFF_BYTES))) throw new UploadFailure(`the diagram command wrote something that is not a ${settings.diagrams.format} image to $2`);
    const hash = createHash('sha256').update(bytes).digest('hex');
    return await upload({ absolute: output, hash });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
