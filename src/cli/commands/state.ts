import { isDeepStrictEqual } from 'node:util';
import type { Command } from 'commander';
import type { Ledger } from '../../ledger/index.js';
import { describeJunk, hasJunk, type StateJunk } from '../../remote-state/junk.js';
import { STATE_FOLDER, type RemoteStateStore } from '../../remote-state/store.js';
import { redactedJson } from '../../secrets.js';
import { workspaceRoot } from '../../sync/observe/observe.js';
import { unpublishedPaths } from '../../sync/state/publish.js';
import { rewriteState } from '../../sync/state/rewrite.js';
import { openStateStore } from '../../sync/state/store.js';
import { rotateKey } from '../../sync/state/key-rotation.js';
import { newKeyPlace, pendingKey, swapKeyFiles } from '../key-files.js';
import { shownPath } from '../../setup/state-key.js';
import { InputError } from '../../errors.js';
import type { TeamRecord } from '../../remote-state/records.js';
import { describeTeam, followTeam, teamOf, TeamSettings } from '../../sync/state/team.js';
import { keyFingerprint } from '../../remote-state/token.js';
import type { CliCommand } from '../command.js';
import { withReadOnlyLedger } from '../read-only.js';
import { openSession, openSyncLedger, syncOptionsOf, type Session } from '../session.js';
import { invocation } from '../../invocation.js';
import { terminal } from '../../terminal.js';

type Flags = { readonly config?: string; readonly json?: boolean };

/** What `kbsync state --json` prints. */
export type StateReport = {
  readonly folder: string;
  /** `chars`: null for a sources document, which `kbsync state` does not read (only the index is read). */
  readonly documents: readonly { readonly title: string; readonly family: string; readonly chars: number | null; readonly retired: boolean }[];
  readonly entries: number;
  readonly indexChars: number;
  /** Read with the team's key (every record used was verified). */
  readonly authenticated: boolean;
  /** What the state holds that was left out (not whole, not verified, out of bounds, not read). */
  readonly junk: StateJunk;
  /** Files this machine's ledger knows that the state lacks or holds an older record of (the next sync publishes them). */
  readonly stale: readonly string[];
};

/**
 * The store of the folder's state, with this machine's key (or `secret`, a new one); `adopting`: written anew
 * with it (rewrite, rotate-key), which a state unsigned, or signed with another key, does not refuse.
 */
async function storeOf(session: Session, ledger: Ledger | undefined, adopting = false, secret?: string): Promise<RemoteStateStore> {
  const options = syncOptionsOf(session.config, { mode: 'two-way', dryRun: true, force: false });
  const rootId = await workspaceRoot(session.client, ledger, options, false);
  const key = secret ?? (await session.stateKey.get());
  const keySource = session.stateKey.description;
  // Read as a run reads it: refused when this machine's key, or its configuration, is not the team's.
  const team = new TeamSettings(options, { ledger: undefined, rootId }, { fingerprint: key ? keyFingerprint(key) : null, source: keySource });
  return openStateStore({ client: session.client, ledger, logger: session.logger }, { workspaceId: options.workspaceId, rootId }, key, { keySource, adopting, ...(adopting ? {} : { team }) });
}

/**
 * The team's settings this machine publishes: the old state's, with what its configuration gives and
 * `fingerprint`'s key; `anew` (a rewrite, a rotation): every record of the new state is bound to its folder.
 */
const teamOfConfig = (session: Session, fingerprint: string | null, anew: boolean) => (held: TeamRecord | undefined): TeamRecord => ({
  ...held,
  t: 'team',
  ...teamOf(followTeam(syncOptionsOf(session.config, { mode: 'two-way', dryRun: false, force: false }), held), fingerprint),
  ...(anew && fingerprint !== null ? { b: 1 as const } : {}),
});

async function show(flags: Flags): Promise<void> {
  const session = await openSession({ config: flags.config, quiet: true });
  const report = await withReadOnlyLedger(session, async (ledger) => {
    const loaded = await (await storeOf(session, ledger)).load();
    return {
      folder: STATE_FOLDER,
      documents: loaded.docs.map((doc) => ({ title: doc.title, family: doc.family, chars: doc.family === 'state' ? doc.chars : null, retired: loaded.state.retired.has(doc.docKey) })),
      entries: loaded.state.entries.size,
      indexChars: loaded.chars,
      authenticated: loaded.authenticated,
      junk: loaded.junk,
      stale: ledger ? unpublishedPaths(ledger, loaded) : [],
    } satisfies StateReport;
  });
  if (flags.json) {
    invocation().stdout.write(`${redactedJson(report)}\n`);
  } else {
    terminal.out(`kbsync's state lives in the knowledge base, in the folder ${STATE_FOLDER} at the synced root: ${report.documents.length} document(s).`);
    for (const doc of report.documents) terminal.out(`  ${doc.title}  ${doc.chars === null ? "sources (not read here: they are read only when a file's text is needed)" : `index, ${doc.chars} characters`}${doc.retired ? ' (retired by a compaction: deleted soon)' : ''}`);
    terminal.out(`${report.entries} file(s) recorded; the index (read by runs that need it) holds ${report.indexChars} characters.`);
    terminal.out(
      report.authenticated
        ? "Authenticated: only records signed with the team's state key were read."
        : "Not authenticated: this machine has no state key (state.key), so the state's records are used only where a forged one can do no harm; kbsync deletes nothing on their word.",
    );
    if (hasJunk(report.junk)) terminal.out(describeJunk(report.junk));
    if (report.stale.length > 0) {
      const shown = report.stale.slice(0, 10).join(', ');
      terminal.out(`Stale: the state lacks, or holds an older record of, ${report.stale.length} file(s) this machine's ledger knows (${shown}${report.stale.length > 10 ? ', ...' : ''}); the next sync publishes them.`);
    }
  }
  if (hasJunk(report.junk) || report.stale.length > 0) invocation().exitCode = 1;
}

async function rewrite(flags: Flags): Promise<void> {
  const session = await openSession({ config: flags.config, quiet: true });
  const ledger = openSyncLedger(session);
  try {
    const store = await storeOf(session, ledger, true);
    const secret = await session.stateKey.get();
    const done = await rewriteState(ledger, { from: store, to: store }, teamOfConfig(session, secret ? keyFingerprint(secret) : null, true));
    const summary = { entries: done.entries, sources: done.sources, leftOut: done.junk ?? null };
    if (flags.json) invocation().stdout.write(`${JSON.stringify(summary)}\n`);
    else {
      terminal.out(`Wrote kbsync's state anew: ${done.entries} file(s), ${done.sources} source(s), from this machine's ledger and the verified part of the old state.`);
      terminal.out(`Every machine now reads the folder with ${describeTeam(done.team)}.`);
      terminal.out('The old state documents are retired: the first sync after ten minutes deletes them (what was appended to them meanwhile is kept).');
      if (done.junk) terminal.out(`Left out of the new state: ${done.junk}`);
    }
  } finally {
    ledger.close();
  }
}

async function rotate(flags: Flags): Promise<void> {
  const session = await openSession({ config: flags.config, quiet: true });
  const ledger = openSyncLedger(session);
  try {
    const old = await session.stateKey.get();
    if (old === undefined) {
      throw new InputError('STATE_KEY_MISSING', `There is no state key to rotate: ${session.stateKey.description} gives none.`, {
        hint: "To give a team without a key one, run `kbsync state rewrite` with the key set (KBSYNC_STATE_KEY), then give every machine and CI run the same key.",
      });
    }
    const place = newKeyPlace(session);
    const secret = await pendingKey(place.file, old);
    const from = await storeOf(session, ledger);
    const to = await storeOf(session, ledger, true, secret);
    const done = await rotateKey(ledger, { from, to }, keyFingerprint(secret), teamOfConfig(session, keyFingerprint(secret), true));
    await swapKeyFiles(place.file);
    const summary = { entries: done.entries, sources: done.sources, fingerprint: keyFingerprint(secret), previousFingerprint: keyFingerprint(old), keyFile: place.file };
    if (flags.json) invocation().stdout.write(`${JSON.stringify(summary)}\n`);
    else {
      terminal.out(`Rotated the team's state key: the shared state is written anew (${done.entries} file(s), ${done.sources} source(s)), signed with the new key (fingerprint ${summary.fingerprint}).`);
      terminal.out(`The old state now says so: a machine with the old key (fingerprint ${summary.previousFingerprint}) stops with STATE_KEY_WRONG, naming the new one, instead of writing what the team would leave out.`);
      terminal.out(`The new key is in ${shownPath(place.file, invocation().env)} (the old one in ${shownPath(`${place.file}.previous`, invocation().env)}). Give it to every machine of the team (that file, or KBSYNC_STATE_KEY) and to CI (its state-key secret).`);
      if (place.note) terminal.out(place.note);
      terminal.out('The old state documents are retired: the first sync with the new key after ten minutes deletes them.');
    }
  } finally {
    ledger.close();
  }
}

/**
 * `kbsync state settings`: the settings the team reads the folder with (published in its state), and whether
 * this configuration agrees; `--publish`: this configuration's become the team's (one append), which every
 * machine then follows (the way to change one: a configuration that merely says otherwise is refused).
 */
async function settings(flags: Flags & { readonly publish?: boolean }): Promise<void> {
  const session = await openSession({ config: flags.config, quiet: true });
  const ledger = openSyncLedger(session, { readonly: !flags.publish });
  try {
    const options = syncOptionsOf(session.config, { mode: 'two-way', dryRun: false, force: false });
    const rootId = await workspaceRoot(session.client, ledger, options, false);
    const secret = await session.stateKey.get();
    const fingerprint = secret ? keyFingerprint(secret) : null;
    // The key is checked as a run checks it; the settings are what this command is about, so they are not refused here.
    const store = openStateStore({ client: session.client, ledger, logger: session.logger }, { workspaceId: options.workspaceId, rootId }, secret, { keySource: session.stateKey.description });
    const held = (await store.load()).state.team;
    const mine = teamOfConfig(session, fingerprint, false)(held);
    const { t: _held, ...before } = held ?? { t: 'team' as const };
    const { t: _mine, ...after } = mine;
    const agrees = held !== undefined && isDeepStrictEqual(before, after);
    if (flags.publish && !agrees) await store.publish([mine]);
    const report = { team: held ? before : null, configuration: after, agrees, published: Boolean(flags.publish && !agrees) };
    if (flags.json) invocation().stdout.write(`${JSON.stringify(report)}\n`);
    else {
      terminal.out(held ? `The team reads this folder with ${describeTeam(held)}.` : 'The team has published no settings yet: the next sync that writes the shared state publishes this machine\'s.');
      if (report.published) terminal.out(`Published this configuration's: ${describeTeam(mine)}. Every machine follows them from its next run (one whose configuration says otherwise is refused).`);
      else if (!agrees) terminal.out(`This configuration reads it with ${describeTeam(mine)}: \`kbsync state settings --publish\` makes those the team's.`);
    }
  } finally {
    ledger.close();
  }
}

export const stateCommand: CliCommand = {
  name: 'state',
  register(program: Command) {
    const state = program
      .command('state')
      .description(`Show kbsync's state kept in the knowledge base (the ${STATE_FOLDER} folder), or write it anew (rewrite).`)
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--json', 'print a machine-readable report on stdout')
      .addHelpText(
        'after',
        `
Every workstation and CI run shares this state: which file is which document, the ids the service gives
only when a document is created (needed to delete it), and each file's Markdown as last synced (so another
machine gets the files back exactly). It is read when a run needs it and written only when it changed.
With the team's state key (state.key, default KBSYNC_STATE_KEY) every record is signed and verified.

Exits 1 when the state holds something left out (not kbsync's, not verified, damaged) or lacks what this
machine's ledger knows.

Examples:
  kbsync state                 where it lives, its size, what was left out, what is stale
  kbsync state rewrite         write it anew from this machine's ledger (after STATE_JUNK, or to adopt a key)
  kbsync state settings        the settings the team reads the folder with; --publish makes this config's theirs
  kbsync state rotate-key      sign it with a new key (KBSYNC_NEW_STATE_KEY, else one made), kept in the key file`,
      )
      .action(show);
    state
      .command('rewrite')
      .description("Write the shared state anew from this machine's ledger and the verified part of the old state; the old documents are retired.")
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--json', 'print a machine-readable summary on stdout')
      .action(rewrite);
    state
      .command('settings')
      .description(
        "The settings the team reads the folder with (layout, markdown.dialect, links, site.basePath, the key's fingerprint), published in the shared state; --publish makes this configuration's the team's.",
      )
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--publish', "publish this configuration's settings as the team's: every machine follows them from its next run")
      .option('--json', 'print { team, configuration, agrees, published } on stdout')
      .action(settings);
    state
      .command('rotate-key')
      .description(
        "Sign the shared state with a new team key: written anew from this machine's ledger (the old key must be the team's), the old state told, so machines with the old key stop and say so; the new key (KBSYNC_NEW_STATE_KEY, else one made) is kept in the key file.",
      )
      .option('-c, --config <file>', 'config file (default: ./sync.config.json)')
      .option('--json', 'print a machine-readable summary on stdout')
      .addHelpText(
        'after',
        `
Run it on a workstation whose ledger knows the files, with the team's current key. The new key is written
where this machine reads its key: the file state.key names, else ~/.config/kbsync/state-key-<workspace>
(the old key is kept beside it as .previous). Then give every machine and CI run the new key; until then
each stops with STATE_KEY_WRONG, naming the new key's fingerprint. A rotation cut short (a crash, the
network) is finished by running it again: it takes the same new key (kept as .new until it is done).`,
      )
      .action(rotate);
  },
};
