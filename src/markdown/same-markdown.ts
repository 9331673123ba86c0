import { parseMarkdown } from './parse.js';

/** A tree's shape and values without source offsets: what the Markdown says, not where it says it. */
const unplaced = (markdown: string): string => JSON.stringify(parseMarkdown(markdown), (key, value: unknown) => (key === 'position' ? undefined : value));

/**
 * Whether two bodies say the same Markdown, spelt differently: a list item's continuation indented or lazy, a
 * different bullet. Every address, code span and emphasis is compared, so two writes that differ where reads
 * cannot see (a link's address) still differ; only the source's layout is left out.
 */
export const sameMarkdown = (a: string, b: string): boolean => a === b || unplaced(a) === unplaced(b);
