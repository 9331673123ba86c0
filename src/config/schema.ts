import * as z from 'zod';

/**
 * The schema of sync.config.json. Every option has a default except workspaceId, service.baseUrl
 * and service.operatorId. Objects are strict: a typo is an error naming the key, never ignored.
 * Descriptions end up in schema/sync.config.schema.json, so editors show them.
 */
const positive = (what = 'a positive number') => z.number({ error: `expected ${what}` }).positive({ error: `expected ${what}` });
const positiveInt = () =>
  z.number({ error: 'expected a positive whole number' }).int({ error: 'expected a positive whole number' }).positive({ error: 'expected a positive whole number' });
const countFromZero = () =>
  z.number({ error: 'expected a whole number ≥ 0' }).int({ error: 'expected a whole number ≥ 0' }).min(0, { error: 'expected a whole number ≥ 0' });
const text = (what: string) => z.string({ error: `expected ${what}` }).min(1, { error: `expected ${what}, not an empty string` });
const globs = () => z.array(text('a glob pattern'), { error: 'expected a list of glob patterns' });

export const TokenSourceSchema = z
  .union(
    [
      z.strictObject({ env: text('an environment variable name').describe('Read the token from this environment variable.') }),
      z.strictObject({ file: text('a file path').describe('Read the token from this file (trimmed; "~" is your home folder; relative to the config file).') }),
      z.strictObject({ command: text('a shell command').describe('Run this command (through sh -c) and use its output; run again when the token expires.') }),
      z.strictObject({ value: text('the token').describe('The token itself. Discouraged: anyone who can read the config file can use it.') }),
    ],
    { error: 'expected one of {"env": NAME}, {"file": PATH}, {"command": COMMAND} or {"value": TOKEN}' },
  )
  .describe('Where the access token comes from. Never from a command-line argument (other users could see it in the process list).');

const ServiceSchema = z
  .strictObject({
    baseUrl: z
      .url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' })
      .describe('Base address of the document service, e.g. http://127.0.0.1:8787.'),
    tokenHeader: text('a header name').default('x-acs-service-access-token').describe('HTTP header that carries the access token.'),
    operatorId: text("the operator's unionId").describe('The unionId of the user kbsync acts for (not the userId).'),
    token: TokenSourceSchema.default({ env: 'KBSYNC_TOKEN' }),
    rateLimit: positive().default(20).describe('Requests per second per endpoint (the real service allows about 20).'),
    concurrency: positiveInt().default(8).describe('Requests in flight at once.'),
    timeoutMs: positiveInt().default(30_000).describe('Timeout of one request, in milliseconds.'),
  })
  .describe('How to reach the document service.');

const GuardsSchema = z
  .strictObject({
    maxDeleteRatio: z
      .number({ error: 'expected a number from 0 to 1' })
      .min(0, { error: 'expected a number from 0 to 1' })
      .max(1, { error: 'expected a number from 0 to 1' })
      .default(0.5)
      .describe('Refuse a run that would delete more than this share of the synced documents on either side.'),
    maxDeletes: countFromZero().default(50).describe('Refuse a run that would delete more than this many documents or files.'),
  })
  .describe('Mass-deletion guards: a run over either limit deletes nothing and asks for --force.');

const WatchSchema = z
  .strictObject({
    debounceMs: countFromZero().default(300).describe('Quiet time after a file change before syncing it, in milliseconds.'),
    pollBudgetPerHour: countFromZero().default(600).describe('Most remote calls per hour the daemon spends looking for remote changes.'),
    fullSweepMinutes: positive().default(60).describe('Minutes between full listings of the remote side.'),
    rescanMinutes: positive().default(10).describe('Minutes between full scans of the local folder (catches what the watcher missed).'),
    shutdownDeadlineMs: positiveInt().default(10_000).describe('On SIGTERM, how long in-flight work may take before the daemon exits, in milliseconds.'),
  })
  .describe('Daemon (kbsync watch) timing.');

const NotifySchema = z
  .strictObject({
    command: text('a shell command')
      .nullable()
      .default(null)
      .describe(
        'A command the daemon runs when it creates a conflict or holds a write (e.g. notify-send "kbsync" "$KBSYNC_MESSAGE"); ' +
          'it gets KBSYNC_EVENT (conflict or held), KBSYNC_PATH and KBSYNC_MESSAGE in its environment. null: off.',
      ),
    timeoutMs: positiveInt().default(10_000).describe('How long the notify command may run before it is stopped, in milliseconds.'),
  })
  .describe('Telling the person when work waits for them (kbsync watch only).');

const DiagramsSchema = z
  .strictObject({
    command: text('a shell command')
      .nullable()
      .default(null)
      .describe(
        'A command that renders one diagram to an image (e.g. mmdc -i "$1" -o "$2"): it gets the source file as $1 / KBSYNC_DIAGRAM_INPUT, ' +
          'the image to write as $2 / KBSYNC_DIAGRAM_OUTPUT and the language as $3 / KBSYNC_DIAGRAM_LANGUAGE. The image is published like any other ' +
          '(it needs images.upload); the file keeps its fenced source. null: diagrams are sent as code blocks.',
      ),
    languages: z
      .array(text('a code block language'), { error: 'expected a list of code block languages' })
      .default(['mermaid'])
      .describe('Fenced code blocks in these languages are diagrams.'),
    format: z
      .enum(['svg', 'png'], { error: 'expected "svg" or "png"' })
      .default('svg')
      .describe('The image format the command is asked for (the extension of $2).'),
  })
  .describe('Diagrams written as fenced code (```mermaid), rendered to images for the knowledge base.');

const ImagesSchema = z
  .strictObject({
    upload: text('a shell command')
      .nullable()
      .default(null)
      .describe(
        'A command that publishes one image and prints its public URL (the last line of its output), e.g. a storage CLI. It gets the file as $1 / ' +
          'KBSYNC_IMAGE_PATH, its SHA-256 as $2 / KBSYNC_IMAGE_SHA256, its media type as $3 / KBSYNC_IMAGE_TYPE, and a content-addressed name as ' +
          'KBSYNC_IMAGE_KEY. Run once per new image content, ever: URLs are cached by hash in the ledger and the knowledge base. null: no upload.',
      ),
    baseUrl: z
      .url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' })
      .nullable()
      .default(null)
      .describe(
        'Images are already served under this URL (the docs site): an image\'s path relative to the site root (site.root, else the synced root) is ' +
          'appended to it, and nothing is uploaded. Used when upload is null.',
      ),
    timeoutMs: positiveInt().default(60_000).describe('How long one upload or diagram render may run before it is stopped, in milliseconds.'),
    maxBytes: positiveInt().default(10 * 1024 * 1024).describe('Images larger than this many bytes are not published (reported with file and line).'),
    diagrams: DiagramsSchema.prefault({}),
  })
  .describe(
    'Where local images (![alt](img/x.png), reference-style images, <img src>) are published, since the service cannot take attachments. ' +
      'With neither upload nor baseUrl, they are reported (IMAGE_NOT_PUBLISHED) and sent as written.',
  );

const BackupsSchema = z
  .strictObject({
    keepPerFile: positiveInt().default(20).describe('Backups kept per file and side (local, remote); older ones are removed after each run.'),
    maxAgeDays: positive().default(30).describe('Backups older than this many days are removed after each run (the newest of each file is always kept).'),
  })
  .describe('Backups of bodies kbsync replaced (<stateDir>/backups): how many, and for how long, they are kept.');

const SiteSchema = z
  .strictObject({
    root: text('a folder path')
      .nullable()
      .default(null)
      .describe('The folder that site-absolute links (/guide/setup) start from, relative to this file (null: the synced root). It may lie above the synced root.'),
    basePath: z
      .string({ error: 'expected a URL path such as "/" or "/docs/"' })
      .regex(/^\/[^?#\s]*$/, { error: 'expected a URL path that starts with "/", such as "/" or "/docs/"' })
      .default('/')
      .describe('The URL path the docs site is served under (e.g. "/cli/v10/"): removed from site-absolute links before they are resolved.'),
  })
  .describe('How the docs site the files are written for addresses them, so that its links can be resolved to documents.');

const LogSchema = z
  .strictObject({
    level: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'expected one of fatal, error, warn, info, debug, trace, silent' })
      .default('info')
      .describe('Log level.'),
  })
  .describe('Logging.');

export const ConfigSchema = z
  .strictObject({
    $schema: z.string().optional().describe('JSON Schema of this file, for editors.'),
    root: text('a folder path').default('./docs').describe('The local folder to sync, relative to this file.'),
    workspaceId: text('a workspace id').describe('The knowledge base (workspace) to sync with.'),
    remoteFolder: text('a node id')
      .nullable()
      .default(null)
      .describe('A folder node to sync under instead of the workspace root (null: the root).'),
    layout: z
      .enum(['folders', 'flat'], { error: 'expected "folders" or "flat"' })
      .default('folders')
      .describe('"folders": local folders become remote folders; "flat": one remote level, document titles are relative paths.'),
    service: ServiceSchema,
    include: globs().default(['**/*.md']).describe('Files to sync: glob patterns relative to root.'),
    exclude: globs().default([]).describe('Files and folders never synced: glob patterns relative to root (.kbsyncignore files work too).'),
    stateDir: text('a folder path').default('.kbsync').describe("kbsync's state folder (ledger, backups, trash), relative to root."),
    allowBroadRoot: z
      .boolean({ error: 'expected true or false' })
      .default(false)
      .describe('Allow a root that is /, your home folder, or a folder holding it (refused by default: it would publish every Markdown file on the machine).'),
    backups: BackupsSchema.prefault({}),
    guards: GuardsSchema.prefault({}),
    links: z
      .boolean({ error: 'expected true or false' })
      .default(true)
      .describe('On push, send links to synced Markdown files (relative, site-absolute, extensionless, folder indexes, #anchors) as links to their documents.'),
    site: SiteSchema.prefault({}),
    images: ImagesSchema.prefault({}),
    watch: WatchSchema.prefault({}),
    notify: NotifySchema.prefault({}),
    log: LogSchema.prefault({}),
  })
  .describe('kbsync configuration: keeps a folder of Markdown files and a knowledge base in step.');

export type ConfigInput = z.input<typeof ConfigSchema>;
/** The validated file, before paths are resolved. */
export type ParsedConfig = z.output<typeof ConfigSchema>;
export type TokenSourceConfig = z.output<typeof TokenSourceSchema>;
export type LogLevel = ParsedConfig['log']['level'];
