// Links between Markdown files, resolved the way docs sites write them and rewritten for the knowledge base. Re-exports only.
export { headingAnchors } from './anchors.js';
export { createLinker, type LinkCheck, type Linker, type LinkerInput } from './linker.js';
export { linkLine, summariseLinks, type LinkSummary } from './summary.js';
export { resolveLink } from './resolve.js';
export { linkProblems, linkUses, rewriteLinks } from './rewrite.js';
export { localTree } from './tree.js';
export { encodeLinkPath } from './url.js';
export type { LinkOutcome, LinkProblem, LinkSite, LinkTree, Lowering, LoweringProblem, SourceOf } from './types.js';
