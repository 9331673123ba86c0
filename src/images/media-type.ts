import { extname } from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.svg': 'image/svg+xml',
  '.bmp': 'image/bmp',
  '.ico': 'image/x-icon',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
};

/** A file a document may show as an image (by its extension): the daemon wakes for its changes too. */
export const isImageFile = (path: string): boolean => TYPES[extname(path).toLowerCase()] !== undefined;

/** The media type an upload command is told (storage CLIs set Content-Type from it); by extension, as web servers do. */
export const mediaTypeOf = (path: string): string => TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
