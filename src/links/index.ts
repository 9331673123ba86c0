// Links between Markdown files, resolved the way docs sites write them and rewritten for the knowledge base. Re-exports only.
export { headingAnchors } from './anchors.js';
export { createLinker, type BodyImages, type Linker, type LinkerInput } from './linker.js';
export { resolveLink } from './resolve.js';
export { applyEdits, linkProblems, linkUses, rewriteLinks, type LinkUse, type Rewritten, type SpanEdit } from './rewrite.js';
export { localTree, type LocalTree } from './tree.js';
export { encodeLinkPath } from './url.js';
export type { BrokenReason, LinkOutcome, LinkProblem, LinkSite, LinkTree } from './types.js';
