import type { ImageProblem } from './types.js';

/** One image problem as a line, the same in the terminal, the daemon's log and CI. */
export const imageLine = (image: ImageProblem): string => `${image.path}:${image.line}: image "${image.target}" not published (${image.reason}): ${image.message} [IMAGE_NOT_PUBLISHED]`;
