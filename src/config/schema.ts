import * as z from 'zod/mini';
import { urlIdProblem, urlIdRefusal } from '../model/ids.js';

/**
 * The schema of sync.config.json. Every option has a default except workspaceId, service.baseUrl
 * and service.operatorId. Objects are strict: a typo is an error naming the key, never ignored.
 * Descriptions end up in schema/sync.config.schema.json, so editors show them.
 * Written with zod/mini (the same checks as zod's classic form, without a method table per schema):
 * building the classic schema and loading its library were about a tenth of a no-op sync's start.
 */
const positive = (what = 'a positive number') => z.number({ error: `expected ${what}` }).check(z.positive({ error: `expected ${what}` }));
const positiveInt = () => {
  const error = 'expected a positive whole number';
  return z.number({ error }).check(z.int({ error }), z.positive({ error }));
};
const countFromZero = () => {
  const error = 'expected a whole number ≥ 0';
  return z.number({ error }).check(z.int({ error }), z.gte(0, { error }));
};
const minutes = () => {
  const error = 'expected a number of minutes ≥ 0';
  return z.number({ error }).check(z.gte(0, { error }));
};
const text = (what: string) => z.string({ error: `expected ${what}` }).check(z.minLength(1, { error: `expected ${what}, not an empty string` }));
/** An id kbsync puts into URLs (model/ids.ts): refused where it could address another endpoint. */
const id = (what: string) =>
  text(what).check(
    z.superRefine((value: string, ctx) => {
      const problem = value === '' ? undefined : urlIdProblem(value); // empty: said by text()
      if (problem) ctx.issues.push({ code: 'custom', message: `expected ${what}: ${urlIdRefusal(value, problem)}`, input: value });
    }),
  );
const globs = () => z.array(text('a glob pattern'), { error: 'expected a list of glob patterns' });
const described = <T extends z.ZodMiniType>(description: string, schema: T): T => schema.check(z.describe(description));
/** An option with a default: what the file may leave out. */
const option = <T extends z.ZodMiniType>(description: string, schema: T, fallback: z.output<T>) => described(description, z._default(schema, fallback as never));
/** A shell command kbsync runs for a hook; null (the default) turns the hook off. */
const hook = (description: string) => option(description, z.nullable(text('a shell command')), null);

export const TokenSourceSchema = described(
  'Where the access token comes from. Never from a command-line argument (other users could see it in the process list).',
  z.union(
    [
      z.strictObject({ env: described('Read the token from this environment variable.', text('an environment variable name')) }),
      z.strictObject({ file: described('Read the token from this file (trimmed; "~" is your home folder; relative to the config file).', text('a file path')) }),
      z.strictObject({ command: described('Run this command (through sh -c) and use its output; run again when the token expires.', text('a shell command')) }),
      z.strictObject({ value: described('The token itself. Discouraged: anyone who can read the config file can use it.', text('the token')) }),
    ],
    { error: 'expected one of {"env": NAME}, {"file": PATH}, {"command": COMMAND} or {"value": TOKEN}' },
  ),
);

const httpUrl = () => z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' });

const ServiceSchema = described(
  'How to reach the document service.',
  z.strictObject({
    baseUrl: described('Base address of the document service, e.g. http://127.0.0.1:8787.', httpUrl()),
    tokenHeader: option('HTTP header that carries the access token.', text('a header name'), 'x-acs-service-access-token'),
    operatorId: described('The unionId of the user kbsync acts for (not the userId).', text("the operator's unionId")),
    token: z._default(TokenSourceSchema, { env: 'KBSYNC_TOKEN' }),
    rateLimit: option('Requests per second per endpoint (the real service allows about 20).', positive(), 20),
    concurrency: option('Requests in flight at once.', positiveInt(), 8),
    timeoutMs: option('Timeout of one request, in milliseconds.', positiveInt(), 30_000),
    callsPerMonth: option(
      "Your plan's monthly call quota (or this folder's share of it): kbsync counts its calls in the ledger, kbsync watch polls only as much as lets it last " +
        'the month, kbsync says when 50, 80, 90 and 100% are spent, and once it is spent work waits for the next month (kbsync sync is refused without --force; ' +
        'kbsync watch keeps edits in the files). 0: no budget.',
      countFromZero(),
      0,
    ),
    shareToken: option(
      'Let the commands kbsync runs (images.upload, images.diagrams.command, notify.command, resolve --tool, the token command) see the token: ' +
        'false (the default) removes KBSYNC_TOKEN, the token variable configured here and any variable holding the token from their environment.',
      z.boolean({ error: 'expected true or false' }),
      false,
    ),
  }),
);

const GuardsSchema = described(
  'Mass-deletion guards: a run over either limit deletes nothing and asks for --force.',
  z.strictObject({
    maxDeleteRatio: option(
      'Refuse a run that would delete more than this share of the synced documents on either side.',
      z.number({ error: 'expected a number from 0 to 1' }).check(z.gte(0, { error: 'expected a number from 0 to 1' }), z.lte(1, { error: 'expected a number from 0 to 1' })),
      0.5,
    ),
    maxDeletes: option('Refuse a run that would delete more than this many documents or files.', countFromZero(), 50),
  }),
);

const WatchSchema = described(
  'Daemon (kbsync watch) timing.',
  z.strictObject({
    debounceMs: option('Quiet time after a file change before syncing it, in milliseconds.', countFromZero(), 300),
    pollBudgetPerHour: option('Most remote calls per hour the daemon spends looking for remote changes.', countFromZero(), 600),
    fullSweepMinutes: option('Minutes between full listings of the remote side.', positive(), 60),
    rescanMinutes: option('Minutes between full scans of the local folder (catches what the watcher missed).', positive(), 10),
    shutdownDeadlineMs: option('On SIGTERM, how long in-flight work may take before the daemon exits, in milliseconds.', positiveInt(), 10_000),
    deleteDelayMinutes: option(
      'A file deleted here has its document deleted once it has stayed gone this long; if it comes back first, its document (and URL) stays. 0: at once.',
      minutes(),
      5,
    ),
    checkoutDelayMinutes: option(
      'After a git checkout (or many files gone at once), the deletions it brings, and its moves to another folder, wait until the branch has stayed this long, or for kbsync resolve --mine.',
      minutes(),
      60,
    ),
    publishBranches: option(
      'In a git repository, the branches the daemon publishes from (names or globs, e.g. ["main", "release/*"]): on any other branch, or a detached HEAD, ' +
        'it publishes nothing (no new document, edit, move or delete; a file only that branch has stays private) and still takes in the knowledge base\'s changes. ' +
        'null: every branch, and a file only a branch has is published while it is checked out.',
      z.nullable(z.array(text('a branch name or glob'), { error: 'expected a list of branch names or globs' }).check(z.minLength(1, { error: 'expected at least one branch; null publishes from every branch' }))),
      null,
    ),
  }),
);

const MarkdownSchema = described(
  'How the files are written.',
  z.strictObject({
    dialect: option(
      '"auto": CommonMark + GFM, and a note vault\'s wiki links ([[Note]]), embeds (![[image.png]]) and callouts (> [!note]) too when the root is a vault ' +
        '(it has an .obsidian settings folder, whose attachment folder, link format and templates folder kbsync follows); "obsidian": read them always; "commonmark": never. ' +
        'Shared by the team through its shared state: with "auto" a fresh clone or CI checkout reads the folder as the team does; another value than the team\'s is refused.',
      z.enum(['auto', 'commonmark', 'obsidian'], { error: 'expected "auto", "commonmark" or "obsidian"' }),
      'auto',
    ),
  }),
);

const MergeSchema = described(
  "Merging a colleague's web-editor edits, and settling conflicts (kbsync resolve).",
  z.strictObject({
    webEdits: option(
      "After a colleague's edit in the web editor, on a page whose every block a read shows (headings, paragraphs, list items, quotes): " +
        '"merge" takes it into the file and publishes your next edit, naming once the lines whose words came from the web editor (formatting ' +
        'added there cannot be read, and that push writes them as the file has them); "hold-words" holds your next overwrite (FLATTEN) when the ' +
        'colleague wrote words, merging only removed or reordered blocks; "strict" holds it after every web edit until kbsync resolve. A page with ' +
        'code, tables, images or other blocks reads cannot show is held after a web edit whatever this says.',
      z.enum(['merge', 'hold-words', 'strict'], { error: 'expected "merge", "hold-words" or "strict"' }),
      'merge',
    ),
    tool: option(
      'The merge tool kbsync resolve FILE runs: a name git mergetool knows (meld, vimdiff, nvimdiff, emerge, kdiff3, vscode, bc, p4merge, …), ' +
        'or a shell command using $BASE $LOCAL $REMOTE $MERGED. null: choose block by block.',
      z.nullable(text('a merge tool name or command')),
      null,
    ),
  }),
);

const NotifySchema = described(
  'Telling the person when work waits for them (kbsync watch only).',
  z.strictObject({
    command: hook(
      'A command the daemon runs when it creates a conflict or holds a write (e.g. notify-send "kbsync" "$KBSYNC_MESSAGE"); ' +
        'it gets KBSYNC_EVENT (conflict or held), KBSYNC_PATH and KBSYNC_MESSAGE in its environment. null: off.',
    ),
    timeoutMs: option('How long the notify command may run before it is stopped, in milliseconds.', positiveInt(), 10_000),
  }),
);

const DiagramsSchema = described(
  'Diagrams written as fenced code (```mermaid), rendered to images for the knowledge base.',
  z.strictObject({
    command: hook(
      'A command that renders one diagram to an image (e.g. mmdc -i "$1" -o "$2"): it gets the source file as $1 / KBSYNC_DIAGRAM_INPUT, ' +
        'the image to write as $2 / KBSYNC_DIAGRAM_OUTPUT and the language as $3 / KBSYNC_DIAGRAM_LANGUAGE. The image is published like any other ' +
        '(it needs images.upload); the file keeps its fenced source. null: diagrams are sent as code blocks.',
    ),
    languages: option(
      'Fenced code blocks in these languages are diagrams.',
      z.array(text('a code block language'), { error: 'expected a list of code block languages' }),
      ['mermaid'],
    ),
    format: option('The image format the command is asked for (the extension of $2).', z.enum(['svg', 'png'], { error: 'expected "svg" or "png"' }), 'svg'),
  }),
);

const ImagesSchema = described(
  'Where local images (![alt](img/x.png), reference-style images, <img src>) are published, since the service cannot take attachments. ' +
    'With neither upload nor baseUrl, they are reported (IMAGE_NOT_PUBLISHED) and sent as written.',
  z.strictObject({
    upload: hook(
      'A command that publishes one image and prints its public URL (the last line of its output), e.g. a storage CLI. It gets the file as $1 / ' +
        'KBSYNC_IMAGE_PATH, its SHA-256 as $2 / KBSYNC_IMAGE_SHA256, its media type as $3 / KBSYNC_IMAGE_TYPE, and a content-addressed name as ' +
        'KBSYNC_IMAGE_KEY. Run once per new image content, ever: URLs are cached by hash in the ledger and the knowledge base. null: no upload.',
    ),
    baseUrl: option(
      'Images are already served under this URL (the docs site): an image\'s path relative to the site root (site.root, else the synced root) is ' +
        'appended to it, and nothing is uploaded. Used when upload is null.',
      z.nullable(httpUrl()),
      null,
    ),
    timeoutMs: option('How long one upload or diagram render may run before it is stopped, in milliseconds.', positiveInt(), 60_000),
    maxBytes: option('Images larger than this many bytes are not published (reported with file and line).', positiveInt(), 10 * 1024 * 1024),
    diagrams: z.prefault(DiagramsSchema, {}),
  }),
);

const BackupsSchema = described(
  'Backups of bodies kbsync replaced (<stateDir>/backups): how many, and for how long, they are kept.',
  z.strictObject({
    keepPerFile: option('Backups kept per file and side (local, remote); older ones are removed after each run.', positiveInt(), 20),
    maxAgeDays: option('Backups older than this many days are removed after each run (the newest of each file is always kept).', positive(), 30),
  }),
);

const SiteSchema = described(
  'How the docs site the files are written for addresses them, so that its links can be resolved to documents.',
  z.strictObject({
    root: option(
      'The folder that site-absolute links (/guide/setup) start from, relative to this file (null: the synced root). It may lie above the synced root.',
      z.nullable(text('a folder path')),
      null,
    ),
    basePath: option(
      'The URL path the docs site is served under (e.g. "/cli/v10/"): removed from site-absolute links before they are resolved. Shared by the team (see markdown.dialect).',
      z
        .string({ error: 'expected a URL path such as "/" or "/docs/"' })
        .check(z.regex(/^\/[^?#\s]*$/, { error: 'expected a URL path that starts with "/", such as "/" or "/docs/"' })),
      '/',
    ),
  }),
);

const StateSchema = described(
  "kbsync's shared state in the knowledge base (the .kbsync folder): how its records are authenticated.",
  z.strictObject({
    key: option(
      "The team's state key: every record kbsync writes to the shared state is signed with it, and only records it verifies are used " +
        '(creation ids, paths, kept sources, image URLs). Read like the token: {"env": NAME}, {"file": PATH} or {"command": COMMAND}. ' +
        'Every machine and CI run of the team needs the same key (`kbsync init` makes one). An unset environment variable falls back to ' +
        "this machine's key file for the workspace (~/.config/kbsync/state-key-<workspace>, which init and clone keep); neither, or null, " +
        'means no key: the state is then unauthenticated, and kbsync uses it only where no forged record can do harm (see the README). Leave it out of a shared config.',
      z.nullable(TokenSourceSchema),
      { env: 'KBSYNC_STATE_KEY' },
    ),
  }),
);

const LogSchema = described(
  'Logging.',
  z.strictObject({
    level: option(
      'Log level.',
      z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'expected one of fatal, error, warn, info, debug, trace, silent' }),
      'info',
    ),
  }),
);

export const ConfigSchema = described(
  'kbsync configuration: keeps a folder of Markdown files and a knowledge base in step.',
  z.strictObject({
    $schema: described('JSON Schema of this file, for editors.', z.optional(z.string())),
    root: option('The local folder to sync, relative to this file.', text('a folder path'), './docs'),
    workspaceId: described('The knowledge base (workspace) to sync with.', id('a workspace id')),
    remoteFolder: option('A folder node to sync under instead of the workspace root (null: the root).', z.nullable(id('a node id')), null),
    layout: option(
      '"folders": local folders become remote folders; "flat": one remote level, document titles are relative paths. Shared by the team (see markdown.dialect).',
      z.enum(['folders', 'flat'], { error: 'expected "folders" or "flat"' }),
      'folders',
    ),
    service: ServiceSchema,
    include: option('Files to sync: glob patterns relative to root.', globs(), ['**/*.md']),
    exclude: option('Files and folders never synced: glob patterns relative to root (.kbsyncignore files work too).', globs(), []),
    stateDir: option("kbsync's state folder (ledger, backups, trash), relative to root.", text('a folder path'), '.kbsync'),
    allowBroadRoot: option(
      'Allow a root that is /, your home folder, or a folder holding it (refused by default: it would publish every Markdown file on the machine).',
      z.boolean({ error: 'expected true or false' }),
      false,
    ),
    backups: z.prefault(BackupsSchema, {}),
    guards: z.prefault(GuardsSchema, {}),
    links: option(
      'On push, send links to synced Markdown files (relative, site-absolute, extensionless, folder indexes, #anchors) as links to their documents. Shared by the team (see markdown.dialect).',
      z.boolean({ error: 'expected true or false' }),
      true,
    ),
    site: z.prefault(SiteSchema, {}),
    markdown: z.prefault(MarkdownSchema, {}),
    images: z.prefault(ImagesSchema, {}),
    watch: z.prefault(WatchSchema, {}),
    notify: z.prefault(NotifySchema, {}),
    state: z.prefault(StateSchema, {}),
    merge: z.prefault(MergeSchema, {}),
    log: z.prefault(LogSchema, {}),
  }),
);

export type ConfigInput = z.input<typeof ConfigSchema>;
/** The validated file, before paths are resolved. */
export type ParsedConfig = z.output<typeof ConfigSchema>;
export type TokenSourceConfig = z.output<typeof TokenSourceSchema>;
