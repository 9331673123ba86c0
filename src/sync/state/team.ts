import { isDeepStrictEqual } from 'node:util';
import { ENV_OPTIONS, type TeamSetting } from '../../config/index.js';
import { InputError, SafetyError } from '../../errors.js';
import type { Ledger } from '../../ledger/index.js';
import type { LinkSite } from '../../links/index.js';
import { checkRecord, type TeamRecord } from '../../remote-state/records.js';
import { STATE_FOLDER } from '../../remote-state/store.js';
import { vaultOf, type VaultSettings } from '../../vault/settings.js';
import type { Layout } from '../decide/types.js';
import type { WebEditsPolicy } from '../decide/web-edits.js';

/**
 * The settings a team reads its synced folder with (records.ts, TeamRecord), as every run meets them: the
 * first run that writes the shared state publishes its own; every other machine, CI job and clone follows
 * them where its configuration says nothing (so a fresh checkout without the vault's settings folder still
 * reads `[[links]]` as the first machine did), and a configuration that says otherwise is refused before
 * anything is written. This machine's ledger keeps the settings it last saw (a run needs no read of the
 * state to know them); a run that has none, or whose configuration now disagrees with them, reads the state
 * before it reads a file.
 */

/** A team's published settings, without the record's tag. */
type Team = Omit<TeamRecord, 't'>;

/** What of a run's options the team's settings decide. */
type TeamOptions = {
  readonly root: string;
  readonly layout: Layout;
  readonly links: boolean;
  readonly site?: LinkSite | undefined;
  readonly vault?: VaultSettings | undefined;
  readonly webEdits?: WebEditsPolicy | undefined;
  /** The team settings the configuration gives itself (config/team-settings.ts). */
  readonly explicit?: readonly TeamSetting[] | undefined;
};

const DEFAULT_BASE = '/';

/** How much each policy holds: a keyless machine follows only a team's policy that holds more than its own. */
const STRICTNESS: Readonly<Record<WebEditsPolicy, number>> = { merge: 0, 'hold-words': 1, strict: 2 };

/** The settings a run reads the folder with, as a team record says them; `key`: its key's fingerprint (null: none). */
export function teamOf(options: TeamOptions, key: string | null): Team {
  const dialect = options.vault ? 'obsidian' : options.explicit?.includes('markdown.dialect') ? 'commonmark' : undefined;
  return { key, layout: options.layout, ...(dialect ? { dialect } : {}), links: options.links, base: options.site?.basePath ?? DEFAULT_BASE, webEdits: options.webEdits ?? 'merge' };
}

/** Each setting as the team and as the run have it (only those both have). */
function pairs(options: TeamOptions, team: Team): { readonly setting: TeamSetting; readonly mine: unknown; readonly theirs: unknown }[] {
  const mine = teamOf(options, team.key);
  return [
    { setting: 'layout' as const, mine: mine.layout, theirs: team.layout },
    { setting: 'markdown.dialect' as const, mine: mine.dialect ?? 'commonmark', theirs: team.dialect },
    { setting: 'links' as const, mine: mine.links, theirs: team.links },
    { setting: 'site.basePath' as const, mine: mine.base, theirs: team.base },
    { setting: 'merge.webEdits' as const, mine: mine.webEdits, theirs: team.webEdits },
  ].filter((pair) => pair.theirs !== undefined);
}

/** The settings the configuration gives itself and the team has otherwise. */
const disagreements = (options: TeamOptions, team: Team) => pairs(options, team).filter((pair) => options.explicit?.includes(pair.setting) && pair.mine !== pair.theirs);

/** The options a run follows: the team's value of each setting the configuration does not give. */
export function followTeam<T extends TeamOptions>(options: T, team: Team | undefined): T {
  if (!team) return options;
  const given = new Set(options.explicit ?? []);
  const follows = (setting: TeamSetting): boolean => !given.has(setting);
  let out: T = options;
  if (team.layout !== undefined && follows('layout')) out = { ...out, layout: team.layout };
  if (team.links !== undefined && follows('links')) out = { ...out, links: team.links };
  if (team.base !== undefined && follows('site.basePath')) out = { ...out, site: { root: out.site?.root ?? '', basePath: team.base } };
  if (team.webEdits !== undefined && follows('merge.webEdits')) out = { ...out, webEdits: team.webEdits };
  if (team.dialect !== undefined && follows('markdown.dialect')) {
    // A vault read on the team's word: its own settings folder, if this checkout has one; the editor's defaults otherwise.
    const vault = team.dialect === 'obsidian' ? (out.vault ?? vaultOf(out.root, 'obsidian', [])) : undefined;
    const { vault: _vault, ...rest } = out;
    out = (vault ? { ...rest, vault } : rest) as T;
  }
  return out;
}

const shown = (value: unknown): string => JSON.stringify(value);

/** A team's published settings in words: `layout "folders", markdown.dialect "obsidian", …`. */
export function describeTeam(team: Team): string {
  const said = [
    team.layout !== undefined ? `layout ${shown(team.layout)}` : '',
    team.dialect !== undefined ? `markdown.dialect ${shown(team.dialect)}` : '',
    team.links !== undefined ? `links ${shown(team.links)}` : '',
    team.base !== undefined ? `site.basePath ${shown(team.base)}` : '',
    team.webEdits !== undefined ? `merge.webEdits ${shown(team.webEdits)}` : '',
    team.key !== null ? `a state signed with the key of fingerprint ${team.key}` : 'a state not signed (the team has no key)',
  ];
  return said.filter(Boolean).join(', ');
}
const variableOf = (setting: TeamSetting): string => ENV_OPTIONS.find((option) => option.path.join('.') === setting)?.env ?? setting;

/**
 * A configuration that gives a team setting the team has otherwise: refused (the folder would be read, and
 * pushed, differently from every other machine's), naming the setting, both values and what to do.
 */
function refuseDisagreement(options: TeamOptions, team: Team): void {
  const differ = disagreements(options, team);
  if (differ.length === 0) return;
  const theirs = differ.map((d) => `${d.setting} ${shown(d.theirs)}`).join(', ');
  const mine = differ.map((d) => `${d.setting} ${shown(d.mine)}`).join(', ');
  throw new InputError(
    'TEAM_SETTINGS_DIFFER',
    `This folder's team reads it with ${theirs} (published in the shared state, the ${STATE_FOLDER} folder, so that every machine reads the same bytes alike), but this machine's configuration says ${mine}.`,
    {
      hint:
        `Remove ${differ.map((d) => `${d.setting} (or ${variableOf(d.setting)})`).join(' and ')} from this machine's configuration, and kbsync follows the team; or set the team's value. ` +
        "To change the team's setting, set the new one here and run `kbsync state settings --publish`: every machine then follows it.",
    },
  );
}

/** The key the state says the team now signs with, when it is another than this machine's (a rotation): refused. */
function refuseRotatedKey(team: Team, fingerprint: string | null, keySource: string): void {
  if (fingerprint === null || team.key === null || team.key === fingerprint) return;
  throw new SafetyError(
    'STATE_KEY_WRONG',
    `This workspace's shared state says its team's state key is now another one (fingerprint ${team.key}: the key was rotated), and this machine still has the old one (from ${keySource}, fingerprint ${fingerprint}): ` +
      "what it writes, the team's kbsyncs would leave out. It stops here.",
    { hint: "Set KBSYNC_STATE_KEY (or the key file, or state.key) to the team's new key: the machine that rotated it has it in its key file." },
  );
}

const cacheKey = (rootId: string): string => `team:${rootId}`;

/** The team's settings as this ledger last saw them under this root (undefined: never). */
export function cachedTeam(ledger: Pick<Ledger, 'meta'> | undefined, rootId: string): Team | undefined {
  const value = ledger?.meta.get(cacheKey(rootId));
  const record = typeof value === 'object' && value !== null && !Array.isArray(value) ? checkRecord({ ...value, t: 'team' }) : undefined;
  if (record?.t !== 'team') return undefined;
  const { t: _t, ...team } = record;
  return team;
}

function rememberTeam(ledger: Ledger | undefined, rootId: string, team: Team): void {
  if (!ledger || ledger.readonly || isDeepStrictEqual(cachedTeam(ledger, rootId), team)) return;
  ledger.meta.set(cacheKey(rootId), { ...team });
}

/**
 * One run's side of the team's settings: which it follows (those this ledger last saw, else those the state
 * says, read first), checked against every load of the state (a key rotated away from this machine's, a
 * configuration that now says otherwise, settings the team changed since this ledger saw them), and what
 * this run publishes of them.
 */
export class TeamSettings<T extends TeamOptions> {
  readonly #options: T;
  readonly #ledger: Ledger | undefined;
  readonly #rootId: string;
  readonly #fingerprint: string | null;
  readonly #keySource: string;
  /** What the run follows, once it started reading files with them (a later load that says otherwise stops it). */
  #followed: Team | undefined;
  #following = false;

  constructor(options: T, where: { readonly ledger: Ledger | undefined; readonly rootId: string }, key: { readonly fingerprint: string | null; readonly source: string }) {
    this.#options = options;
    this.#ledger = where.ledger;
    this.#rootId = where.rootId;
    this.#fingerprint = key.fingerprint;
    this.#keySource = key.source;
    this.#followed = cachedTeam(where.ledger, where.rootId);
  }

  /**
   * Whether the run must read the state before it reads a file: this ledger never saw the team's settings
   * (a fresh checkout, a clone, the first run after an upgrade), or the configuration now disagrees with
   * them, or this machine's key (or its lack of one) is not the one they name: the state then says whether the
   * team changed them, and a key that is not the team's is refused before anything is read from a file.
   */
  get readFirst(): boolean {
    const known = this.#followed;
    return known === undefined || disagreements(this.#options, known).length > 0 || known.key !== this.#fingerprint;
  }

  /** The run's options, following the team's settings as known now; from here on a load that says otherwise stops the run. */
  follow(): T {
    this.#following = true;
    return followTeam(this.#options, this.#trusted(this.#followed));
  }

  /**
   * What of the team's settings a run may follow. Without the key anyone who can edit the workspace could have
   * written them, so a keyless machine does not take the layout from them (another layout pairs no file with
   * its document: every file would be made again), nor a `merge.webEdits` that lets a push write over more
   * than its configuration does (only one that holds more); the others change only what a push sends, as a
   * forged kept source can (see the README's "A team without a key").
   */
  #trusted(team: Team | undefined): Team | undefined {
    if (!team || this.#fingerprint !== null) return team;
    const { layout: _layout, webEdits, ...rest } = team;
    const stricter = webEdits !== undefined && STRICTNESS[webEdits] > STRICTNESS[this.#options.webEdits ?? 'merge'];
    return stricter ? { ...rest, webEdits } : rest;
  }

  /** Every load of the state: the settings it holds, checked; then kept in the ledger. */
  check(team: TeamRecord | undefined): void {
    if (!team) return;
    const { t: _t, ...published } = team;
    refuseRotatedKey(published, this.#fingerprint, this.#keySource);
    refuseDisagreement(this.#options, published);
    const before = this.#followed;
    rememberTeam(this.#ledger, this.#rootId, published);
    this.#followed = published;
    if (!this.#following) return;
    const now = followTeam(this.#options, this.#trusted(published));
    const then = followTeam(this.#options, this.#trusted(before));
    if (isDeepStrictEqual(teamOf(now, null), teamOf(then, null))) return;
    throw new SafetyError(
      'TEAM_SETTINGS_CHANGED',
      `This folder's team changed the settings it reads the folder with (now ${pairs(now, published).map((p) => `${p.setting} ${shown(p.theirs)}`).join(', ')}) since this machine last read them, and this run had started reading the files the old way. It stops here.`,
      { hint: 'Run it again: the next run reads the folder as the team now does.' },
    );
  }

  /**
   * What this run publishes of the team's settings, over what the state holds (undefined: the state says it
   * already). `bound`: every token this run read was bound to the folder, so the state can say it is (b).
   */
  published(options: TeamOptions, held: TeamRecord | undefined, bound: boolean): TeamRecord | undefined {
    const { t: _t, ...before } = held ?? { t: 'team' as const };
    const team: Team = { ...before, ...teamOf(options, this.#fingerprint), ...(bound && this.#fingerprint !== null ? { b: 1 as const } : {}) };
    if (held && isDeepStrictEqual({ ...before }, { ...team })) return undefined;
    return { t: 'team', ...team };
  }

  /** The settings this run published (or found published): the ledger keeps them. */
  remember(team: TeamRecord): void {
    const { t: _t, ...published } = team;
    rememberTeam(this.#ledger, this.#rootId, published);
    this.#followed = published;
  }
}
