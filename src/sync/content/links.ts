import type { Linker } from '../../links/index.js';

/**
 * The links of a run (src/links): a pushed body's links to synced files become their documents' URLs,
 * the rest are reported. Passed along as `urlOf`, which is what the decisions ask of it. Only types are
 * imported here, so the decision (decide/) loads no I/O through it; the run's side is in run-links.ts.
 */
export type UrlOfPath = Linker;

/** Exactly what a push sends for a body's links (the decisions call this through pushMarkdown). */
export const linksToUrls = (body: string, fromPath: string, links: Linker): string => links.rewrite(body, fromPath);
