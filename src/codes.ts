/**
 * Every code kbsync ends a message with, what it means and what to do: the closed list that errors,
 * reports and the README's troubleshooting table are all made from (`npm run gen:docs` writes the
 * table; a test fails when it is out of date). Codes that share one cause share one row.
 */
export const CODE_TABLE = [
  { codes: ['API_FORBIDDEN'], means: 'The app lacks a permission scope; the message names it (`requiredScopes`). Grant it in the developer console, then issue a new token. `kbsync doctor` checks every scope.' },
  { codes: ['API_UNAUTHORIZED'], means: 'The token is expired or not valid for this API: get a new one. On the first rejection kbsync reads its token source again once, so a rotated token is picked up.' },
  { codes: ['API_BAD_REQUEST'], means: 'The service refused an input; the message quotes it. For `paramError` about the operator and for `MissingoperatorId`, `operatorId` must be the user\'s **unionId**, not the userId (`kbsync doctor` says so plainly).' },
  { codes: ['API_INVALID_PATH'], means: 'The service has no such API: `service.baseUrl` is wrong (it must not include `/v1.0` or `/v2.0`). Never read as "deleted".' },
  { codes: ['API_NOT_FOUND'], means: 'The workspace, folder or document does not exist or the operator cannot see it. `kbsync workspaces` lists what it can see.' },
  { codes: ['API_NETWORK', 'API_SERVER', 'API_THROTTLED'], means: 'The network or the service was unwell; retried automatically, then reported. Run again later.' },
  { codes: ['API_OUTCOME_UNKNOWN'], means: 'A create or append may or may not have happened (the answer was lost). kbsync looks before trying again, so nothing is made twice.' },
  { codes: ['API_BAD_RESPONSE'], means: 'The service answered something kbsync cannot read (not the documented shape). Nothing was recorded from it; if it persists, check `service.baseUrl` points at the right service.' },
  { codes: ['API_TOO_LARGE', 'BODY_TOO_LARGE'], means: 'A body over 50,000 characters, which the service refuses: split the file. It is refused before any document is created.' },
  { codes: ['API_CONFLICT'], means: 'A node of that name already exists there: rename the file or folder.' },
  { codes: ['TOKEN_MISSING', 'TOKEN_INVALID', 'TOKEN_COMMAND_FAILED'], means: 'The token source gave nothing usable: set the variable (`KBSYNC_TOKEN`), fix the file or the command.' },
  { codes: ['CONFIG_MISSING', 'CONFIG_INVALID', 'CONFIG_INVALID_JSON', 'CONFIG_ENV_INVALID', 'CONFIG_EXISTS', 'CONFIG_UNREADABLE'], means: 'The configuration file is missing, unreadable, invalid (the key, the value and the variable are named), or (`init`) already there.' },
  { codes: ['INVALID_BASE_URL', 'INVALID_OPERATOR_ID', 'INVALID_TIMEOUT', 'INVALID_QUEUE_OPTION', 'SERVICE_SETTINGS_INVALID', 'SERVICE_UNKNOWN'], means: 'A service setting is wrong or missing (the message names it): fix `service` in the config or the `--base-url` / `--operator-id` flags.' },
  { codes: ['LEDGER_LOCKED', 'DAEMON_RUNNING'], means: 'Another kbsync (often the daemon) uses this folder; the message names its pid. Stop it, or use `kbsync status`, which does not need the lock. A lock left by a dead process is taken over automatically.' },
  { codes: ['LEDGER_CORRUPT', 'LEDGER_FOREIGN', 'LEDGER_TOO_NEW', 'LEDGER_OUTDATED'], means: 'The ledger is damaged, not kbsync\'s, from a newer kbsync, or (read-only commands) from an older one; it is left untouched. For a damaged one: move it aside and run again; documents are re-adopted without duplicates.' },
  { codes: ['LEDGER_NOT_WRITABLE', 'LEDGER_OPEN_FAILED', 'LEDGER_MISSING', 'LEDGER_PATH'], means: 'The ledger cannot be opened or written (permissions, a read-only disk), or (read-only commands) does not exist yet. The message names the file and what to do.' },
  { codes: ['LEDGER_INVALID_RECORD', 'LEDGER_INVALID_PATH', 'LEDGER_DUPLICATE', 'LEDGER_NOT_FOUND', 'LEDGER_INTENT_IN_TRANSACTION', 'LEDGER_INTENT_NOT_OPEN', 'LEDGER_ROW_MISSING'], means: 'kbsync asked its ledger for something inconsistent: a kbsync bug. Nothing was written; please report it with the message.' },
  { codes: ['MASS_DELETE'], means: 'The run would delete more than the guards allow. Restore the files if that was an accident; otherwise `--force` or raise `guards.maxDeletes` / `guards.maxDeleteRatio`.' },
  { codes: ['EMPTY_LOCAL', 'EMPTY_REMOTE'], means: 'One side is empty but held synced documents before: an unmounted drive, a wrong `root`, `workspaceId` or `remoteFolder`. Fix that; if everything was really deleted, `--force`.' },
  { codes: ['REMOTE_STATE_DAMAGED'], means: "kbsync's state documents in the knowledge base (the `.kbsync` folder) were edited by hand or damaged: nothing was done. Run `kbsync state rewrite` on a machine whose ledger is intact, or delete the `.kbsync` folder in the web editor (the next run rebuilds the state by title; documents whose creation ids were only in it can then no longer be deleted by kbsync)." },
  { codes: ['WORKSPACE_CHANGED'], means: 'The folder was synced with another workspace. Put `workspaceId` back, or sync the other workspace into a new folder.' },
  { codes: ['FILE_NOT_UTF8', 'FILE_TOO_LARGE', 'FILE_HAS_NUL', 'FILE_NOT_REGULAR', 'FILE_UNREADABLE', 'FILE_INVALID', 'FRONT_MATTER_INVALID', 'FRONT_MATTER_YAML', 'FRONT_MATTER_LANGUAGE'], means: 'One file cannot be synced (not UTF-8 text, over 50,000 characters or 4 MiB, binary, not a regular file, or bad front matter); it is left alone and the rest syncs (exit 1).' },
  { codes: ['NAME_TWIN', 'NAME_UNPORTABLE'], means: 'A file name that cannot sync: a second Unicode spelling of another file\'s name, or a name with a backslash. Rename it; until then the run exits 1.' },
  { codes: ['CONFLICT_OPEN'], means: "Both sides changed the same part of a document differently: your version is in the file, the knowledge base's in the conflict copy beside it, and the knowledge base keeps its version until you settle it with `kbsync resolve`." },
  { codes: ['RESOLVE_NOTHING_OPEN', 'RESOLVE_NO_ANSWER', 'RESOLVE_CANNOT_RELEASE', 'MERGE_TOOL_FAILED', 'MERGE_TOOL_UNSETTLED'], means: '`kbsync resolve` was given a file with no open conflict and nothing held, got no answer for a clash (answer m, t or b, or use --mine, --theirs or --tool), was asked for a side that cannot end that hold (the message says what can), or the merge tool failed or left the merged file unsettled (untouched, or with conflict markers); nothing was changed.' },
  { codes: ['NOTIFY_FAILED'], means: 'The `notify.command` of the config failed or ran longer than `notify.timeoutMs` (said once until it works again). Syncing goes on; fix the command.' },
  { codes: ['CONFLICT_OF_CONFLICT'], means: 'A conflict copy clashed again: resolve it by hand and delete the copy.' },
  { codes: ['REMOTE_CHANGED_DURING_WRITE'], means: 'Someone saved the document while kbsync wrote it. Nothing is lost; the next sync merges.' },
  { codes: ['FILE_CHANGED', 'FILE_VANISHED'], means: 'A file changed or disappeared while kbsync worked on it, so it was left as it is: the next sync sees the change.' },
  { codes: ['UNSAFE_PATH', 'PATH_NOT_FILE', 'PATH_NOT_FOLDER', 'PATH_MISSING', 'PATH_TAKEN'], means: 'A path would leave the root, go through a symlink, or hit something in the way: rename what is in the way.' },
  { codes: ['PERMISSION_DENIED', 'READ_ONLY_FILE_SYSTEM', 'DISK_FULL'], means: 'The file system refused a write; the message names the path. Fix its permissions, remount it read-write, or free space.' },
  { codes: ['ROOT_MISSING', 'ROOT_UNREADABLE', 'STATE_DIR_MISSING'], means: 'The synced folder (or kbsync\'s state folder in it) does not exist or cannot be read: check `root`, and that the drive is mounted. kbsync never re-creates a folder that vanished.' },
  { codes: ['ROOT_TOO_BROAD'], means: 'The root is `/`, your home folder or a folder holding it: kbsync would publish every Markdown file on the machine. Fix `root`; to mean it, `allowBroadRoot: true`.' },
  { codes: ['WORKSPACE_CHOICE', 'WORKSPACE_UNKNOWN', 'NO_WORKSPACES'], means: '`init` / `workspaces` / `clone` need `--workspace`, a valid id, or a user who sees a workspace.' },
  { codes: ['CLONE_TARGET_EXISTS', 'CLONE_NOT_A_DOCUMENT', 'CLONE_NOT_IN_TREE', 'DEMO_FOLDER_EXISTS'], means: '`clone` (and `demo --keep`, which works in `./kbsync-demo`) only write into a new or empty folder, and `clone` needs a folder or workspace URL it can find.' },
  { codes: ['SERVICE_UNSUPPORTED', 'SERVICE_NOT_OURS', 'SERVICE_MANAGER_FAILED'], means: '`kbsync service` works with systemd (Linux) and launchd (macOS) only; it does not replace a unit file it did not write; or `systemctl --user` (`launchctl`) refused a step, whose output the message quotes (the files are written: run the step by hand once the user manager runs).' },
  { codes: ['LINK_BROKEN'], means: 'A link cannot work in the knowledge base: the report names file, line, target and reason (`missing`, `not-synced`, `outside-root`, `anchor-missing`, `malformed`; see [Links](#links)). Fix the link or add the file; `site.root` / `site.basePath` say how site-absolute links are meant. With `--check-links` nothing is sent (exit 5).' },
  { codes: ['IMAGE_NOT_PUBLISHED'], means: 'A local image the knowledge base will not show: the report names file, line, image and reason (no `images.upload` or `images.baseUrl` configured, `missing`, `outside-root`, `too-large`, `malformed`; see [Images](#images)). The document is published with the reference as written.' },
  { codes: ['IMAGE_UPLOAD_FAILED'], means: 'The `images.upload` (or `images.diagrams.command`) command failed, printed no http(s) URL, or ran longer than `images.timeoutMs`: that file was not sent at all, the rest of the run went on (exit 1). Run the command by hand on the image to see why.' },
  { codes: ['USAGE'], means: 'Options that cannot go together, or one that needs another (`--json` with `--output-format github`, `diff --format markdown` without `--push`): the message names them.' },
  { codes: ['SEARCH_EMPTY'], means: '`kbsync search` needs words to search for.' },
  { codes: ['EMULATOR_BAD_OPTION', 'EMULATOR_BAD_FAULTS', 'EMULATOR_CANNOT_LISTEN'], means: '`kbsync emulator` got an option it cannot use (the message names it), or its port is taken.' },
  { codes: ['FORMATTING_SIMPLIFIED'], means: "A colleague's edit of a paragraph crossed a link or a code span, so kbsync could not write it around your formatting: that block is now plain text (the message names the line; the file as it was is in `.kbsync/backups`). Re-apply the formatting if you want it." },
  { codes: ['TITLE_KEPT'], means: 'A file\'s title changed, but the service cannot rename a document: it keeps its title. `kbsync sync --retitle` replaces it with a new document under the new title (a new URL; the old one is deleted).' },
  { codes: ['STATE_FOLDER_SHARED'], means: 'A document sits in the `.kbsync` folder at the synced root, which is kbsync\'s own: it is not synced. Move it to another folder.' },
  { codes: ['WATCHER_FAILED'], means: 'The daemon\'s file watcher stopped (a system watch limit); it now finds local changes by rescanning every `watch.rescanMinutes`.' },
  { codes: ['QUEUE_CLOSED'], means: 'kbsync was stopping, so a call was not sent; the next run or start does it.' },
  { codes: ['UNEXPECTED'], means: 'An error kbsync has no words for yet: a bug. The message says what failed; `KBSYNC_DEBUG=1` adds the stack trace for a report.' },
] as const;

export type ErrorCode = (typeof CODE_TABLE)[number]['codes'][number];

const ALL: ReadonlySet<string> = new Set(CODE_TABLE.flatMap((row) => row.codes));

/** Is `code` one of kbsync's (not, say, a Node errno)? */
export const isErrorCode = (code: string): code is ErrorCode => ALL.has(code);
