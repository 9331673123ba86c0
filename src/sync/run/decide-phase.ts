import type { ImageProblem } from '../../images/types.js';
import type { LinkCheck, LinkProblem } from '../../links/index.js';
import type { SyncContext } from './context.js';
import { decideAll, type Previewed } from '../views/decisions.js';
import { assessIO } from './executor.js';
import { imageReport, sentBodies, type SentBody } from '../content/images.js';
import { checkEveryLink, DEFAULT_SITE, linkReport, pushRewriter, runLinker } from '../content/run-links.js';
import type { Run } from './inputs.js';
import type { Observed } from './observe-phase.js';
import { syncContext } from './sync-context.js';
import { runLowering } from '../content/vault.js';
import { whyUnsynced } from '../content/unsynced.js';
import type { Logger } from '../../log.js';
import { pathsNamed } from '../../printable.js';
import { compare } from '../decide/placement.js';
import type { NoteEmbeds } from '../views/report.js';
import { refusalsSaid } from '../observe/refusals.js';

/** What the run decided beyond the plan: where its actions run, the bodies it sends, what it says of their links and images. */
export type Decision = {
  readonly ctx: SyncContext;
  /** The bodies this run sends (content/images.ts). */
  readonly sent: readonly SentBody[];
  readonly imageProblems: readonly ImageProblem[];
  /** The files whose embedded notes this run sends as links, and how many each. */
  readonly noteEmbeds: NoteEmbeds;
  /** The files refused for what they hold that earlier runs said, as this run found them before recording its own. */
  readonly refusalsSaid: ReturnType<typeof refusalsSaid>;
  /** The broken links the report lists: those --check-links gated the run on, else worked out when asked. */
  readonly links: () => LinkProblem[];
  /** With --check-links: every synced file's links checked, before anything is sent. */
  readonly linkCheck?: LinkCheck;
  /**
   * Set when the run stops here, having written nothing (a dry run, or --check-links that found a broken
   * link): each action's decision, made with reads only, as the run would make it.
   */
  readonly preview?: readonly Omit<Previewed, 'assessment'>[];
};

/**
 * Decide: the links gate and rewriter, the images the sent bodies lack, the context the actions run in;
 * and for a run that stops after deciding, every decision the run would make, with reads only.
 */
export async function decide(run: Run, observed: Observed): Promise<Decision> {
  const { deps, options } = run;
  const { ledger } = deps;
  const { observation, images } = observed;
  // Links (src/links via ../run-links.ts): reported for the files this run sends; --check-links checks all and gates the run.
  const checkLinks = options.checkLinks ?? false;
  // A vault's bodies are sent, checked and reported as the CommonMark they are lowered to (src/vault).
  const lowering = runLowering(observation, options);
  const lower = { ...(lowering ? { lower: lowering.lower } : {}), unsynced: whyUnsynced(observation, options) };
  const rewriter =
    checkLinks && options.mode === 'pull' ? runLinker(observation, ledger, options.site ?? DEFAULT_SITE, lower) : pushRewriter(observation, ledger, { ...options, links: options.links || checkLinks, images, ...lower });
  const linker = observation.dialectOwed ? rewriter?.resending(observation.dialectOwed) : rewriter;
  // Worked out after the run from the parses its sends made (a push's first call waits for nothing it
  // does not need), unless --check-links gates the run on them.
  const reportLinks = (): LinkProblem[] => (linker ? linkReport(linker, observation, false) : []);
  const gate = checkLinks && linker ? checkEveryLink(linker, observation) : undefined;
  // The bodies this run sends, read once for every image step (nothing is sent in a pull).
  const sent = options.mode === 'pull' ? [] : sentBodies(observation, lowering?.lower);
  const noteEmbeds = lowering ? sayNoteEmbeds(deps.logger, lowering.noteEmbeds()) : [];
  const imageProblems = imageReport(images, sent);
  const linksBlock = gate !== undefined && gate.problems.length > 0;
  const ctx = syncContext(run, observed, linker);
  const decision = { ctx, sent, imageProblems, noteEmbeds, refusalsSaid: refusalsSaid(ledger), links: () => gate?.problems ?? reportLinks(), ...(gate ? { linkCheck: gate } : {}) };
  if (!options.dryRun && !linksBlock) return decision;
  const preview = (await decideAll(assessIO(ctx), observation.plan.actions)).map(({ assessment: _assessment, ...rest }) => rest);
  return { ...decision, preview };
}

/**
 * Embedded notes go out as links to them (the service cannot show one document inside another): said once a
 * run, naming a few files (the report, `--json`, lists them all).
 */
function sayNoteEmbeds(logger: Logger, embeds: ReadonlyMap<string, number>): NoteEmbeds {
  if (embeds.size === 0) return [];
  const total = [...embeds.values()].reduce((sum, n) => sum + n, 0);
  const named = pathsNamed([...embeds.keys()]);
  logger.warn(named, '%d embedded note(s) (![[Note]]) in %d file(s) are sent as links to those notes: the knowledge base cannot show one document inside another%s', total, embeds.size, named.more ? ` (${named.more} more files: --json lists them)` : '');
  return [...embeds].sort(([a], [b]) => compare(a, b)).map(([path, count]) => ({ path, count }));
}
