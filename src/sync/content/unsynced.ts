import { LeftOut, PathFilter } from '../../local/index.js';
import type { VaultSettings } from '../../vault/settings.js';
import type { Observation } from '../observe/observe.js';

/** Why a file that is there is not one kbsync publishes, in words a report of a link to it ends with. */
export type WhyUnsynced = (path: string) => string;

type UnsyncedOptions = {
  readonly include?: readonly string[] | undefined;
  readonly exclude?: readonly string[] | undefined;
  readonly stateDir: string;
  readonly vault?: VaultSettings | undefined;
};

/** By the run's local observation: one explainer a run, shared by its links and its vault's lowering. */
const made = new WeakMap<Observation['local'], WhyUnsynced>();

/**
 * The true reason each file a link reaches is not published, by the first that holds: refused this run (its
 * problem: front matter that is not valid, too large, not UTF-8), `publish: false`, a template of the vault,
 * a conflict copy, skipped by the scan (a symlink, a special file, a clashing name), left out by a rule (a
 * hidden or state folder, `exclude`, a `.kbsyncignore`), or not Markdown at all.
 */
export function whyUnsynced(observation: Pick<Observation, 'scan' | 'local'>, options: UnsyncedOptions): WhyUnsynced {
  const known = made.get(observation.local);
  if (known) return known;
  const { scan, local } = observation;
  const refused = new Map([...scan.problems.map((p) => [p.path, `${p.reason} [${p.code}]`] as const), ...local.problems.map((p) => [p.path, `${p.message} [${p.code}]`] as const)]);
  const skipped = new Map(scan.skipped.map((skip) => [skip.path, skip.reason]));
  const copies = new Set(scan.conflictCopies.map((file) => file.path));
  const templates = options.vault?.templatesFolder;
  // Without the vault's own templates rule, so a template is said as one, not as an exclude pattern.
  const exclude = (options.exclude ?? []).filter((glob) => glob !== `${templates}/**`);
  // Made on first need (their globs cost a compile): most runs never report a link to such a file.
  let rules: { readonly leftOut: LeftOut; readonly filter: PathFilter } | undefined;
  const rulesNow = (): NonNullable<typeof rules> =>
    (rules ??= {
      leftOut: new LeftOut(scan.root, { stateDir: options.stateDir, exclude }),
      filter: new PathFilter(scan.root, { stateDir: options.stateDir, exclude, ...(options.include ? { include: options.include } : {}) }),
    });
  const why: WhyUnsynced = (path) => {
    const refusal = refused.get(path);
    if (refusal !== undefined) return `kbsync refuses it this run: ${refusal}`;
    if (local.unpublished.has(path)) return 'its front matter says publish: false';
    if (templates !== undefined && path.startsWith(`${templates}/`)) return `it is a template (in the vault's templates folder ${templates})`;
    if (copies.has(path)) return 'it is a conflict copy, waiting for `kbsync resolve`';
    const skip = skipped.get(path);
    if (skip !== undefined) return skip;
    const { leftOut, filter } = rulesNow();
    const left = leftOut.why(path);
    if (left) return left.detail;
    if (filter.fileVerdict(path) === 'ignored') return /\.md$/i.test(path) ? "the config's include does not take it" : 'it is not a Markdown file, and kbsync publishes only those';
    return 'kbsync does not sync it';
  };
  made.set(local, why);
  return why;
}
