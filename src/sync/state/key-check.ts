import { SafetyError } from '../../errors.js';
import { parseTitle } from '../../remote-state/documents.js';
import { STATE_FOLDER, type StateDoc } from '../../remote-state/store.js';
import type { StateKey } from '../../remote-state/token.js';

/** This machine's key as a message names it: where it came from, and its fingerprint (never the key). */
type KeyName = { readonly source: string; readonly fingerprint: string };

const named = (docs: readonly StateDoc[]): string => `${docs[0]?.title}${docs.length > 1 ? ` and ${docs.length - 1} more` : ''}`;

/**
 * Whether this machine's key is the team's, from the state documents' titles alone (a listing, no read):
 * a title the key signs is the team's own, so one is enough. With none, a state signed with another key
 * (a wrong key, or the one a rotation replaced) would be read as empty and written anew under this key,
 * which the team's kbsyncs then leave out as junk; and an unsigned state is a team without a key, whose
 * machines would all stop at the first record this one signs. Either way nothing of the state is read or
 * written: the run stops before it writes anything (STATE_KEY_WRONG), saying which key it has and what to do.
 */
export function refuseOtherKey(docs: readonly StateDoc[], key: StateKey, name: KeyName): void {
  const signed = (doc: StateDoc) => parseTitle(doc.title, key)?.signed;
  if (docs.some((doc) => signed(doc) === 'signed')) return;
  const other = docs.filter((doc) => signed(doc) === 'forged');
  if (other.length > 0) {
    throw new SafetyError(
      'STATE_KEY_WRONG',
      `This workspace's shared state is signed with another state key than this machine's (from ${name.source}, fingerprint ${name.fingerprint}): ` +
        `none of its documents (${named(other)} in the ${STATE_FOLDER} folder) is signed with it, so this machine would read none of it and write a state the team's kbsyncs leave out. It stops here.`,
      {
        hint:
          "Use the team's current key: set KBSYNC_STATE_KEY (or the key file, or state.key) to it; `kbsync doctor` on a machine that syncs shows its fingerprint. " +
          'If the team rotated its key, take the new one. If nobody in the team made these documents, delete them in the web editor.',
      },
    );
  }
  const unsigned = docs.filter((doc) => signed(doc) === 'unsigned' || signed(doc) === 'legacy');
  if (unsigned.length === 0) return;
  throw new SafetyError(
    'STATE_KEY_WRONG',
    `This workspace's shared state is not signed (${named(unsigned)} in the ${STATE_FOLDER} folder: its team has no state key), but this machine has one (from ${name.source}, fingerprint ${name.fingerprint}): ` +
      "its records would stop every kbsync of the team that has none. It stops here.",
    {
      hint:
        'Sync without the key (unset KBSYNC_STATE_KEY, remove the key file, or set state.key to null), or make it the team\'s key: run `kbsync state rewrite` with it on a machine whose ledger knows the files, ' +
        'then give every machine and CI run the same key.',
    },
  );
}
