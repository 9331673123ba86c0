import type { SentImage } from './types.js';

/** The ledger's column text for the images a document was sent with (null: none). */
export const encodeSentImages = (images: readonly SentImage[] | undefined): string | null => (images && images.length > 0 ? JSON.stringify(images) : null);

/** The ledger's column text read back; a damaged value reads as none (the next push records it anew). */
export function decodeSentImages(text: string | null | undefined): SentImage[] {
  if (!text) return [];
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as SentImage[]).filter((image) => typeof image?.p === 'string' && typeof image.h === 'string' && typeof image.u === 'string') : [];
  } catch {
    return [];
  }
}

/** What the shared state keeps of them: no stat, which is only this machine's. */
export function sharedImagesOf(text: string | null | undefined): { im?: SentImage[] } {
  const images = decodeSentImages(text).map(({ s: _size, m: _mtime, ...shared }) => shared);
  return images.length > 0 ? { im: images } : {};
}

/** Does this body send other images than the document got last time (another file, other bytes, another URL)? */
export function imagesDiffer(now: readonly SentImage[], before: readonly SentImage[]): boolean {
  const key = (image: SentImage) => `${image.p}\0${image.h}\0${image.u}`;
  const a = now.map(key).sort();
  const b = before.map(key).sort();
  return a.length !== b.length || a.some((k, i) => k !== b[i]);
}
