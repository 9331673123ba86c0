/**
 * How a command that ends with an error exits, by the name of its row in the CLI's table of exit codes
 * (`EXIT_CODES` in cli/exit-codes.ts, which maps the names to numbers and checks they are all there).
 * An error met on one file only is reported beside the others and the run exits `partial`; this is the
 * exit of a command the error ends, whichever class throws it.
 */
type ErrorExit = 'partial' | 'usage' | 'refused' | 'service' | 'brokenLinks';

/**
 * Every code kbsync ends a message with, what it means and what to do, and the exit of a command that
 * ends with it: the closed list that errors, reports, exit codes and the README's troubleshooting table
 * are all made from (`npm run gen:docs` writes the table; a test fails when it is out of date). Codes
 * that share one cause share one row; each code has its own exit, so a code has one exit wherever it is
 * thrown.
 */
export const CODE_TABLE = [
  { codes: { API_FORBIDDEN: 'service' }, means: 'The app lacks a permission scope; the message names it (`requiredScopes`). Grant it in the developer console, then issue a new token. `kbsync doctor` checks every scope.' },
  { codes: { API_UNAUTHORIZED: 'service' }, means: 'The token is expired or not valid for this API: get a new one. On the first rejection kbsync reads its token source again once, so a rotated token is picked up.' },
  { codes: { API_BAD_REQUEST: 'service' }, means: 'The service refused an input; the message quotes it. For `paramError` about the operator and for `MissingoperatorId`, `operatorId` must be the user\'s **unionId**, not the userId (`kbsync doctor` says so plainly).' },
  { codes: { API_INVALID_PATH: 'service' }, means: 'The service has no such API: `service.baseUrl` is wrong (it must not include `/v1.0` or `/v2.0`). Never read as "deleted".' },
  { codes: { API_NOT_FOUND: 'service' }, means: 'The workspace, folder or document does not exist or the operator cannot see it. `kbsync workspaces` lists what it can see.' },
  { codes: { API_NETWORK: 'service', API_SERVER: 'service', API_THROTTLED: 'service' }, means: 'The network or the service was unwell; retried automatically, then reported. Run again later. A throttle that asks kbsync to wait more than 60 s (`Retry-After`) is not waited for: the message says when to run again.' },
  { codes: { API_OUTCOME_UNKNOWN: 'service' }, means: 'A create or append may or may not have happened (the answer was lost). kbsync looks before trying again, so nothing is made twice.' },
  { codes: { API_BAD_RESPONSE: 'service' }, means: 'The service answered something kbsync cannot read (not the documented shape), or beyond the bounds kbsync keeps (an answer over 16 MiB, a listing that never ends, a folder that contains itself: see [Security](#security)). Nothing was recorded from it and nothing deleted; if it persists, check `service.baseUrl` points at the right service.' },
  { codes: { API_TOO_LARGE: 'service', BODY_TOO_LARGE: 'usage' }, means: 'A body over 50,000 characters, which the service refuses: split the file. It is refused before any document is created.' },
  { codes: { API_CONFLICT: 'service' }, means: 'A node of that name already exists there: rename the file or folder.' },
  { codes: { TOKEN_MISSING: 'usage', TOKEN_INVALID: 'usage', TOKEN_COMMAND_FAILED: 'usage' }, means: 'The token source gave nothing usable: set the variable (`KBSYNC_TOKEN`), fix the file or the command.' },
  { codes: { CONFIG_MISSING: 'usage', CONFIG_INVALID: 'usage', CONFIG_INVALID_JSON: 'usage', CONFIG_ENV_INVALID: 'usage', CONFIG_EXISTS: 'usage', CONFIG_UNREADABLE: 'usage' }, means: 'The configuration file is missing, unreadable, invalid (the key, the value and the variable are named), or (`init`) already there.' },
  { codes: { INVALID_BASE_URL: 'usage', INVALID_OPERATOR_ID: 'usage', INVALID_TIMEOUT: 'usage', INVALID_QUEUE_OPTION: 'usage', SERVICE_SETTINGS_INVALID: 'usage', SERVICE_UNKNOWN: 'usage' }, means: 'A service setting is wrong or missing (the message names it): fix `service` in the config or the `--base-url` / `--operator-id` flags.' },
  { codes: { LEDGER_LOCKED: 'refused', DAEMON_RUNNING: 'refused' }, means: 'Another kbsync (often the daemon) uses this folder; the message names its pid. Stop it, or use `kbsync status`, which does not need the lock. A lock left by a dead process is taken over automatically.' },
  { codes: { LEDGER_CORRUPT: 'refused', LEDGER_FOREIGN: 'refused', LEDGER_TOO_NEW: 'refused', LEDGER_OUTDATED: 'usage' }, means: 'The ledger is damaged, not kbsync\'s, from a newer kbsync, or (read-only commands) from an older one; it is left untouched. For a damaged one: move it aside and run again; documents are re-adopted without duplicates.' },
  { codes: { LEDGER_NOT_WRITABLE: 'usage', LEDGER_OPEN_FAILED: 'usage', LEDGER_MISSING: 'usage', LEDGER_PATH: 'usage' }, means: 'The ledger cannot be opened or written (permissions, a read-only disk), or (read-only commands) does not exist yet. The message names the file and what to do.' },
  { codes: { LEDGER_INVALID_RECORD: 'partial', LEDGER_INVALID_PATH: 'partial', LEDGER_DUPLICATE: 'partial' }, means: 'The ledger refused a value (a malformed path or id, or a second claim on one): nothing was written. Such a value comes from the shared state in the knowledge base, which anyone who can edit the workspace can change, or from a kbsync bug: `kbsync state` shows whether the state is damaged, `kbsync state rewrite` writes it anew; if it is sound, please report it with the message.' },
  { codes: { LEDGER_NOT_FOUND: 'partial', LEDGER_INTENT_IN_TRANSACTION: 'partial', LEDGER_INTENT_NOT_OPEN: 'partial' }, means: 'kbsync asked its ledger for something inconsistent: a kbsync bug. Nothing was written; please report it with the message.' },
  { codes: { MASS_DELETE: 'refused' }, means: 'The run would delete more than the guards allow. Restore the files if that was an accident; otherwise `--force` or raise `guards.maxDeletes` / `guards.maxDeleteRatio`.' },
  { codes: { EMPTY_LOCAL: 'refused', EMPTY_REMOTE: 'refused' }, means: 'One side is empty but held synced documents before: an unmounted drive, a wrong `root`, `workspaceId` or `remoteFolder`. Fix that; if everything was really deleted, `--force`.' },
  { codes: { STATE_KEY_MISSING: 'usage', STATE_KEY_INVALID: 'usage' }, means: "The team's state key (`state.key`) was configured as a file or command that gave none, or is not a key (under 24 characters, or with spaces): fix it, or use the key `kbsync init` printed. An unset `KBSYNC_STATE_KEY` is no error: it means the team has no key." },
  { codes: { STATE_KEY_NEEDED: 'refused' }, means: "The workspace's shared state is signed with a state key, and this machine has none: set `KBSYNC_STATE_KEY` (or `state.key`) to the team's key; in CI, pass it as a secret. Nothing was done, so this machine writes nothing the team's kbsyncs would ignore." },
  { codes: { STATE_KEY_WRONG: 'refused' }, means: "This machine's state key is not the team's: the workspace's shared state is signed with another key (a wrong one, or the one a key rotation replaced; the message gives this machine's key's fingerprint), or it is not signed at all (the team has no key). kbsync stops before it writes anything. Set `KBSYNC_STATE_KEY` (or the key file, or `state.key`) to the team's current key (`kbsync doctor` on a machine that syncs shows its fingerprint), or, for a team without a key, sync without one; see [Authenticated records](#authenticated-records-the-teams-state-key)." },
  { codes: { STATE_NOT_PUBLISHED: 'partial' }, means: "kbsync could not write its shared state in the knowledge base (the service failed): the run's records and creation ids are in this machine's ledger, and the next run publishes them. In CI, whose ledger is discarded, run the job again." },
  { codes: { STATE_UNAUTHENTICATED: 'partial' }, means: "No state key is configured, so the shared state is unauthenticated: kbsync pairs files by path and uses kept sources from it, but deletes no document on its word alone (`ID_UNVERIFIED`). Set the team's key (`kbsync init` makes one) for every machine and CI run; see [Remote state](#remote-state)." },
  { codes: { STATE_JUNK: 'partial' }, means: "The `.kbsync` folder holds text kbsync did not write or cannot verify (edited by hand, another key, a colleague's junk): it was left out and counted, and syncing went on with the rest. `kbsync state` shows where; `kbsync state rewrite` on a machine whose ledger is intact writes the state anew." },
  { codes: { WORKSPACE_CHANGED: 'refused' }, means: 'The folder was synced with another workspace. Put `workspaceId` back, or sync the other workspace into a new folder.' },
  { codes: { FILE_NOT_UTF8: 'usage', FILE_TOO_LARGE: 'usage', FILE_HAS_NUL: 'usage', FILE_NOT_REGULAR: 'usage', FILE_UNREADABLE: 'partial', FILE_INVALID: 'partial', FRONT_MATTER_INVALID: 'usage', FRONT_MATTER_YAML: 'usage', FRONT_MATTER_LANGUAGE: 'usage' }, means: 'One file cannot be synced (not UTF-8 text, over 50,000 characters or 4 MiB, binary, not a regular file, or bad front matter); it is left alone and the rest syncs (exit 1).' },
  { codes: { NAME_TWIN: 'partial', NAME_UNPORTABLE: 'partial' }, means: 'A file name that cannot sync: a second Unicode spelling of another file\'s name, or a name with a backslash. Rename it; until then the run exits 1.' },
  { codes: { CONFLICT_OPEN: 'partial' }, means: "Both sides changed the same part of a document differently: your version is in the file, the knowledge base's in the conflict copy beside it, and the knowledge base keeps its version until you settle it with `kbsync resolve`." },
  { codes: { RESOLVE_NOTHING_OPEN: 'usage', RESOLVE_NO_ANSWER: 'usage', RESOLVE_CANNOT_RELEASE: 'usage', MERGE_TOOL_FAILED: 'usage', MERGE_TOOL_UNSETTLED: 'usage' }, means: '`kbsync resolve` was given a file with no open conflict and nothing held, got no answer for a clash (answer m, t or b, or use --mine, --theirs or --tool), was asked for a side that cannot end that hold (the message says what can), or the merge tool failed or left the merged file unsettled (untouched, or with conflict markers); nothing was changed.' },
  { codes: { NOTIFY_FAILED: 'partial' }, means: 'The `notify.command` of the config failed or ran longer than `notify.timeoutMs` (said once until it works again). Syncing goes on; fix the command.' },
  { codes: { CONFLICT_OF_CONFLICT: 'partial' }, means: 'A conflict copy clashed again: resolve it by hand and delete the copy.' },
  { codes: { REMOTE_CHANGED_DURING_WRITE: 'partial' }, means: 'Someone saved the document while kbsync wrote it. Nothing is lost; the next sync merges.' },
  { codes: { FILE_CHANGED: 'refused', FILE_VANISHED: 'partial' }, means: 'A file changed or disappeared while kbsync worked on it, so it was left as it is: the next sync sees the change.' },
  { codes: { UNSAFE_PATH: 'refused', PATH_NOT_FILE: 'usage', PATH_NOT_FOLDER: 'usage', PATH_MISSING: 'usage', PATH_TAKEN: 'usage' }, means: 'A path would leave the root, go through a symlink, or hit something in the way: rename what is in the way. A path no file can have (absolute, `..`) came from the shared state in the knowledge base: `kbsync state rewrite` writes it anew.' },
  { codes: { PERMISSION_DENIED: 'usage', READ_ONLY_FILE_SYSTEM: 'usage', DISK_FULL: 'usage' }, means: 'The file system refused a write; the message names the path. Fix its permissions, remount it read-write, or free space.' },
  { codes: { ROOT_MISSING: 'usage', ROOT_UNREADABLE: 'usage', STATE_DIR_MISSING: 'usage' }, means: 'The synced folder (or kbsync\'s state folder in it) does not exist or cannot be read: check `root`, and that the drive is mounted. kbsync never re-creates a folder that vanished.' },
  { codes: { ROOT_TOO_BROAD: 'usage' }, means: 'The root is `/`, your home folder or a folder holding it: kbsync would publish every Markdown file on the machine. Fix `root`; to mean it, `allowBroadRoot: true`.' },
  { codes: { WORKSPACE_CHOICE: 'usage', WORKSPACE_UNKNOWN: 'usage', NO_WORKSPACES: 'usage' }, means: '`init` / `workspaces` / `clone` need `--workspace`, a valid id, or a user who sees a workspace.' },
  { codes: { CLONE_TARGET_EXISTS: 'usage', CLONE_NOT_A_DOCUMENT: 'usage', CLONE_NOT_IN_TREE: 'usage', DEMO_FOLDER_EXISTS: 'usage' }, means: '`clone` (and `demo --keep`, which works in `./kbsync-demo`) only write into a new or empty folder, and `clone` needs a folder or workspace URL it can find.' },
  { codes: { SERVICE_UNSUPPORTED: 'usage', SERVICE_NOT_OURS: 'usage', SERVICE_MANAGER_FAILED: 'partial' }, means: '`kbsync service` works with systemd (Linux) and launchd (macOS) only; it does not replace a unit file it did not write; or `systemctl --user` (`launchctl`) refused a step, whose output the message quotes (the files are written: run the step by hand once the user manager runs).' },
  { codes: { LINK_BROKEN: 'brokenLinks' }, means: 'A link cannot work in the knowledge base: the report names file, line, target and reason (`missing`, `not-synced`, `outside-root`, `anchor-missing`, `malformed`; see [Links](#links)). Fix the link or add the file; `site.root` / `site.basePath` say how site-absolute links are meant. With `--check-links` nothing is sent (exit 5).' },
  { codes: { IMAGE_NOT_PUBLISHED: 'partial' }, means: 'A local image the knowledge base will not show: the report names file, line, image and reason (no `images.upload` or `images.baseUrl` configured, `missing`, `outside-root`, `too-large`, `malformed`, `hidden`, `excluded`, `not-an-image`; see [Images](#images)). The document is published with the reference as written.' },
  { codes: { IMAGE_UPLOAD_FAILED: 'partial' }, means: 'The `images.upload` (or `images.diagrams.command`) command failed, printed no http(s) URL, or ran longer than `images.timeoutMs`: that file was not sent at all, the rest of the run went on (exit 1). Run the command by hand on the image to see why.' },
  { codes: { USAGE: 'usage' }, means: 'Options that cannot go together, or one that needs another (`--json` with `--output-format github`, `diff --format markdown` without `--push`): the message names them.' },
  { codes: { SEARCH_EMPTY: 'usage' }, means: '`kbsync search` needs words to search for.' },
  { codes: { EMULATOR_BAD_OPTION: 'usage', EMULATOR_BAD_FAULTS: 'usage', EMULATOR_CANNOT_LISTEN: 'usage' }, means: '`kbsync emulator` got an option it cannot use (the message names it), or its port is taken.' },
  { codes: { FORMATTING_SIMPLIFIED: 'partial' }, means: "A colleague's edit of a paragraph crossed a link or a code span, so kbsync could not write it around your formatting: that block is now plain text (the message names the line; the file as it was is in `.kbsync/backups`). Re-apply the formatting if you want it." },
  { codes: { TITLE_KEPT: 'partial' }, means: 'A file\'s title changed, but the service cannot rename a document: it keeps its title. `kbsync sync --retitle` replaces it with a new document under the new title (a new URL; the old one is deleted).' },
  { codes: { STATE_FOLDER_SHARED: 'partial' }, means: 'A document sits in the `.kbsync` folder at the synced root, which is kbsync\'s own: it is not synced. Move it to another folder.' },
  { codes: { WATCHER_FAILED: 'partial' }, means: 'The daemon\'s file watcher stopped (a system watch limit); it now finds local changes by rescanning every `watch.rescanMinutes`.' },
  { codes: { QUEUE_CLOSED: 'partial' }, means: 'kbsync was stopping, so a call was not sent; the next run or start does it.' },
  { codes: { UNEXPECTED: 'partial' }, means: 'An error kbsync has no words for yet: a bug. The message says what failed; `KBSYNC_DEBUG=1` adds the stack trace for a report.' },
] as const satisfies readonly { readonly codes: Readonly<Record<string, ErrorExit>>; readonly means: string }[];

type CodesOf<Row> = Row extends { readonly codes: infer Codes } ? keyof Codes & string : never;
export type ErrorCode = CodesOf<(typeof CODE_TABLE)[number]>;

/** Each code with the exit of a command it ends. */
export const ERROR_EXITS: Readonly<Record<ErrorCode, ErrorExit>> = Object.assign({}, ...CODE_TABLE.map((row) => row.codes));

const ALL: ReadonlySet<string> = new Set(Object.keys(ERROR_EXITS));

/** Is `code` one of kbsync's (not, say, a Node errno)? */
export const isErrorCode = (code: string): code is ErrorCode => ALL.has(code);
