import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, ENV_OPTIONS, type LoadedConfig } from '../../../src/config/index.js';
import { KbsyncError } from '../../../src/errors.js';
import { redact } from '../../../src/secrets.js';
import { minimal, tempDir, writeConfig } from './helpers.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

async function failure(promise: Promise<LoadedConfig>): Promise<KbsyncError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof KbsyncError, String(error));
    return error;
  }
  assert.fail('expected loadConfig to fail');
}

describe('loadConfig', () => {
  test('fills every default and resolves root from the config file and stateDir from root', async (t) => {
    const dir = await tempDir(t);
    await writeConfig(dir, minimal);
    const { config, configPath, warnings } = await loadConfig({ cwd: dir, env: {} });
    assert.equal(configPath, path.join(dir, 'sync.config.json'));
    assert.deepEqual(warnings, []);
    assert.deepEqual(config, {
      root: path.join(dir, 'docs'),
      workspaceId: 'ws-1',
      remoteFolder: null,
      layout: 'folders',
      service: {
        baseUrl: 'http://127.0.0.1:8787',
        tokenHeader: 'x-acs-service-access-token',
        operatorId: 'union-1',
        token: { env: 'KBSYNC_TOKEN' },
        rateLimit: 20,
        concurrency: 8,
        timeoutMs: 30000,
        callsPerMonth: 0,
        shareToken: false,
      },
      include: ['**/*.md'],
      exclude: [],
      stateDir: path.join(dir, 'docs', '.kbsync'),
      allowBroadRoot: false,
      backups: { keepPerFile: 20, maxAgeDays: 30 },
      guards: { maxDeleteRatio: 0.5, maxDeletes: 50 },
      links: true,
      site: { root: null, basePath: '/' },
      markdown: { dialect: 'auto' },
      images: { upload: null, baseUrl: null, timeoutMs: 60000, maxBytes: 10485760, diagrams: { command: null, languages: ['mermaid'], format: 'svg' } },
      watch: { debounceMs: 300, pollBudgetPerHour: 600, fullSweepMinutes: 60, rescanMinutes: 10, shutdownDeadlineMs: 10000, deleteDelayMinutes: 5, checkoutDelayMinutes: 60, publishBranches: null },
      notify: { command: null, timeoutMs: 10000 },
      state: { key: { env: 'KBSYNC_STATE_KEY' } },
      merge: { webEdits: 'merge', tool: null },
      log: { level: 'info' },
      explicit: [],
    });
  });

  test('the team settings a config gives itself, in the file or by a variable, are known: the others follow the team', async (t) => {
    const dir = await tempDir(t);
    await writeConfig(dir, { ...minimal, layout: 'folders', markdown: { dialect: 'auto' }, site: { root: null } });
    assert.deepEqual((await loadConfig({ cwd: dir, env: {} })).config.explicit, ['layout'], 'the default written out is given; "auto" is not');
    const { config } = await loadConfig({ cwd: dir, env: { KBSYNC_MARKDOWN_DIALECT: 'obsidian', KBSYNC_SITE_BASE_PATH: '/docs/', KBSYNC_LINKS: 'false' } });
    assert.deepEqual(config.explicit, ['layout', 'markdown.dialect', 'links', 'site.basePath']);
  });

  test('--config FILE, ~ paths and token files are resolved', async (t) => {
    const dir = await tempDir(t);
    const file = await writeConfig(dir, { ...minimal, root: '~/notes', stateDir: '/var/kb', service: { ...minimal.service, token: { file: 'secret/token' } } }, 'custom.json');
    const { config } = await loadConfig({ path: 'custom.json', cwd: dir, env: { HOME: '/home/me' } });
    assert.equal(config.root, '/home/me/notes');
    assert.equal(config.stateDir, '/var/kb');
    assert.deepEqual(config.service.token, { file: path.join(dir, 'secret/token') });
    assert.ok(file.endsWith('custom.json'));
  });

  test('a missing file is CONFIG_MISSING suggesting kbsync init', async (t) => {
    const dir = await tempDir(t);
    const error = await failure(loadConfig({ cwd: dir, env: {} }));
    assert.equal(error.code, 'CONFIG_MISSING');
    assert.match(error.message, /kbsync init/);
    assert.equal((await failure(loadConfig({ path: 'nope.json', cwd: dir, env: {} }))).code, 'CONFIG_MISSING');
  });

  test('half-written or invalid JSON is CONFIG_INVALID_JSON with line:column', async (t) => {
    const dir = await tempDir(t);
    const cases: Array<[string, RegExp]> = [
      ['{\n  "workspaceId": "ws",\n  "service": {\n', /:4:1: invalid JSON: the file ends too early/],
      ['{\n  "a": 1,\n}', /:2:9: invalid JSON: trailing comma/],
      ['{\n  // comment\n}', /:2:3: invalid JSON: comments are not allowed/],
      ['{"a": tru}', /:1:7: invalid JSON: unexpected "t"/],
      ['', /is empty/],
      ['{"a": 1} x', /:1:10: invalid JSON: unexpected "x" after the end/],
    ];
    for (const [text, pattern] of cases) {
      await writeConfig(dir, text);
      const error = await failure(loadConfig({ cwd: dir, env: {} }));
      assert.equal(error.code, 'CONFIG_INVALID_JSON', text);
      assert.match(error.message, pattern, text);
    }
    await writeConfig(dir, '[1, 2]');
    assert.equal((await failure(loadConfig({ cwd: dir, env: {} }))).code, 'CONFIG_INVALID');
  });

  test('validation names each bad key path and the value received; unknown keys are named with a suggestion', async (t) => {
    const dir = await tempDir(t);
    await writeConfig(dir, {
      workspaceId: '',
      layot: 'flat',
      service: { baseUrl: 'ftp://x', operatorId: 'u', rateLimit: 'fast', tokenHedaer: 'x', token: { env: 'A', file: 'b' } },
      guards: { maxDeleteRatio: 2 },
      watch: { debounceMs: -1 },
      log: { level: 'loud' },
    });
    const error = await failure(loadConfig({ cwd: dir, env: {} }));
    assert.equal(error.code, 'CONFIG_INVALID');
    const expected = [
      'unknown key "layot" (did you mean "layout"?)',
      'workspaceId: expected a workspace id, not an empty string, got ""',
      'service.baseUrl: expected an http:// or https:// URL, got "ftp://x"',
      'service: unknown key "tokenHedaer" (did you mean "tokenHeader"?)',
      'service.rateLimit: expected a positive number, got "fast"',
      'service.token: expected one of {"env": NAME}, {"file": PATH}, {"command": COMMAND} or {"value": TOKEN}, got an object with the keys env, file',
      'guards.maxDeleteRatio: expected a number from 0 to 1, got 2',
      'watch.debounceMs: expected a whole number ≥ 0, got -1',
      'log.level: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    ];
    for (const line of expected) assert.ok(error.message.includes(line), `missing: ${line}\nin:\n${error.message}`);
  });

  test('an id that could leave its URL segment is refused where it comes in, naming the key', async (t) => {
    const dir = await tempDir(t);
    await writeConfig(dir, { ...minimal, workspaceId: '..', remoteFolder: 'a/../b' });
    const error = await failure(loadConfig({ cwd: dir, env: {} }));
    assert.equal(error.code, 'CONFIG_INVALID');
    assert.match(error.message, /workspaceId: expected a workspace id: the id "\.\." cannot be one segment of a URL path: it is a dot segment/);
    assert.match(error.message, /remoteFolder: expected a node id: the id "a\/\.\.\/b" cannot be one segment of a URL path: it holds a "\/"/);
  });

  test('a required key that is missing says so', async (t) => {
    const dir = await tempDir(t);
    await writeConfig(dir, { service: minimal.service });
    const error = await failure(loadConfig({ cwd: dir, env: {} }));
    assert.match(error.message, /workspaceId: expected a workspace id, got nothing \(this key is required\)/);
  });

  test('KBSYNC_* variables override every option, with coercion', async (t) => {
    const dir = await tempDir(t);
    await writeConfig(dir, minimal);
    const env = {
      KBSYNC_WORKSPACE_ID: 'ws-env',
      KBSYNC_SERVICE_BASE_URL: 'https://kb.example.com/',
      KBSYNC_WATCH_DEBOUNCE_MS: '1200',
      KBSYNC_GUARDS_MAX_DELETES: '0',
      KBSYNC_GUARDS_MAX_DELETE_RATIO: '0.25',
      KBSYNC_LINKS: 'no',
      KBSYNC_INCLUDE: 'notes/**/*.md, *.md',
      KBSYNC_EXCLUDE: '["drafts/**"]',
      KBSYNC_REMOTE_FOLDER: 'node-7',
      KBSYNC_LAYOUT: 'flat',
      KBSYNC_LOG_LEVEL: 'debug',
      KBSYNC_SERVICE_TOKEN_COMMAND: 'pass show kb',
    };
    const { config } = await loadConfig({ cwd: dir, env });
    assert.equal(config.workspaceId, 'ws-env');
    assert.equal(config.service.baseUrl, 'https://kb.example.com');
    assert.equal(config.service.operatorId, 'union-1', 'the file still counts where the env is silent');
    assert.equal(config.watch.debounceMs, 1200);
    assert.equal(config.guards.maxDeletes, 0);
    assert.equal(config.guards.maxDeleteRatio, 0.25);
    assert.equal(config.links, false);
    assert.deepEqual(config.include, ['notes/**/*.md', '*.md']);
    assert.deepEqual(config.exclude, ['drafts/**']);
    assert.equal(config.remoteFolder, 'node-7');
    assert.equal(config.layout, 'flat');
    assert.equal(config.log.level, 'debug');
    assert.deepEqual(config.service.token, { command: 'pass show kb' });
  });

  test('every option has a variable, named in upper snake case', () => {
    const names = ENV_OPTIONS.map((option) => option.env).sort();
    for (const name of [
      'KBSYNC_ROOT', 'KBSYNC_WORKSPACE_ID', 'KBSYNC_REMOTE_FOLDER', 'KBSYNC_LAYOUT', 'KBSYNC_SERVICE_BASE_URL', 'KBSYNC_SERVICE_TOKEN_HEADER',
      'KBSYNC_SERVICE_OPERATOR_ID', 'KBSYNC_SERVICE_TOKEN_ENV', 'KBSYNC_SERVICE_TOKEN_FILE', 'KBSYNC_SERVICE_TOKEN_COMMAND', 'KBSYNC_SERVICE_TOKEN_VALUE',
      'KBSYNC_SERVICE_RATE_LIMIT', 'KBSYNC_SERVICE_CONCURRENCY', 'KBSYNC_SERVICE_TIMEOUT_MS', 'KBSYNC_SERVICE_CALLS_PER_MONTH', 'KBSYNC_INCLUDE', 'KBSYNC_EXCLUDE', 'KBSYNC_STATE_DIR',
      'KBSYNC_GUARDS_MAX_DELETE_RATIO', 'KBSYNC_GUARDS_MAX_DELETES', 'KBSYNC_LINKS', 'KBSYNC_SITE_ROOT', 'KBSYNC_SITE_BASE_PATH', 'KBSYNC_WATCH_DEBOUNCE_MS', 'KBSYNC_WATCH_POLL_BUDGET_PER_HOUR',
      'KBSYNC_WATCH_FULL_SWEEP_MINUTES', 'KBSYNC_WATCH_RESCAN_MINUTES', 'KBSYNC_WATCH_SHUTDOWN_DEADLINE_MS', 'KBSYNC_LOG_LEVEL',
      'KBSYNC_IMAGES_UPLOAD', 'KBSYNC_IMAGES_BASE_URL', 'KBSYNC_IMAGES_TIMEOUT_MS', 'KBSYNC_IMAGES_MAX_BYTES', 'KBSYNC_IMAGES_DIAGRAMS_COMMAND',
      'KBSYNC_IMAGES_DIAGRAMS_LANGUAGES', 'KBSYNC_IMAGES_DIAGRAMS_FORMAT', 'KBSYNC_STATE_KEY_ENV', 'KBSYNC_STATE_KEY_FILE', 'KBSYNC_STATE_KEY_COMMAND',
      'KBSYNC_STATE_KEY_VALUE', 'KBSYNC_WATCH_DELETE_DELAY_MINUTES', 'KBSYNC_WATCH_CHECKOUT_DELAY_MINUTES', 'KBSYNC_WATCH_PUBLISH_BRANCHES', 'KBSYNC_MERGE_WEB_EDITS', 'KBSYNC_MERGE_TOOL', 'KBSYNC_MARKDOWN_DIALECT',
    ]) {
      assert.ok(names.includes(name), name);
    }
    assert.equal(names.length, 52);
  });

  test('a bad variable names the variable and its value', async (t) => {
    const dir = await tempDir(t);
    await writeConfig(dir, minimal);
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ KBSYNC_SERVICE_RATE_LIMIT: 'fast' }, /KBSYNC_SERVICE_RATE_LIMIT="fast" is not a number/],
      [{ KBSYNC_LINKS: 'maybe' }, /KBSYNC_LINKS="maybe" is not true or false/],
      [{ KBSYNC_INCLUDE: '[1,2]' }, /KBSYNC_INCLUDE="\[1,2\]" is not a list of strings/],
      [{ KBSYNC_SERVICE_RATE_LIMIT: '-3' }, /service\.rateLimit \(from KBSYNC_SERVICE_RATE_LIMIT\): expected a positive number, got -3/],
      [{ KBSYNC_SERVICE_TOKEN_FILE: 'a', KBSYNC_SERVICE_TOKEN_ENV: 'B' }, /KBSYNC_SERVICE_TOKEN_ENV and KBSYNC_SERVICE_TOKEN_FILE are both set/],
    ];
    for (const [env, pattern] of cases) {
      const error = await failure(loadConfig({ cwd: dir, env }));
      assert.match(error.message, pattern);
    }
  });

  test('the token and the state key each have one source: a service unit sets both files, each replacing what the file says', async (t) => {
    const dir = await tempDir(t);
    await writeConfig(dir, { ...minimal, state: { key: { env: 'TEAM_KEY' } } });
    // What `kbsync service install` puts in a unit: the token file and the key file, side by side.
    const { config } = await loadConfig({ cwd: dir, env: { KBSYNC_SERVICE_TOKEN_FILE: '/run/t', KBSYNC_STATE_KEY_FILE: '/run/k' } });
    assert.deepEqual(config.service.token, { file: '/run/t' });
    assert.deepEqual(config.state.key, { file: '/run/k' }, 'the file source replaces the config\'s {"env"} whole');
    const two = await failure(loadConfig({ cwd: dir, env: { KBSYNC_STATE_KEY_FILE: '/run/k', KBSYNC_STATE_KEY_COMMAND: 'pass key' } }));
    assert.equal(two.code, 'CONFIG_ENV_INVALID');
    assert.match(two.message, /KBSYNC_STATE_KEY_FILE and KBSYNC_STATE_KEY_COMMAND are both set, but state\.key \(the state key\) has one source/);
  });

  test('watch.publishBranches: a list of branches from the file or the variable (comma-separated), null for every branch; an empty list is refused', async (t) => {
    const dir = await tempDir(t);
    await writeConfig(dir, minimal);
    assert.equal((await loadConfig({ cwd: dir, env: {} })).config.watch.publishBranches, null);
    assert.deepEqual((await loadConfig({ cwd: dir, env: { KBSYNC_WATCH_PUBLISH_BRANCHES: 'main, release/*' } })).config.watch.publishBranches, ['main', 'release/*']);
    assert.equal((await loadConfig({ cwd: dir, env: { KBSYNC_WATCH_PUBLISH_BRANCHES: 'null' } })).config.watch.publishBranches, null);
    await writeConfig(dir, { ...minimal, watch: { publishBranches: [] } });
    assert.match((await failure(loadConfig({ cwd: dir, env: {} }))).message, /watch\.publishBranches: expected at least one branch; null publishes from every branch/);
  });

  test('a mistyped KBSYNC_ variable is a warning, not silently ignored', async (t) => {
    const dir = await tempDir(t);
    await writeConfig(dir, minimal);
    const { warnings } = await loadConfig({ cwd: dir, env: { KBSYNC_SERVICE_BASEURL: 'x', KBSYNC_WATCH_NOPE: '1', KBSYNC_TOKEN: 't', KBSYNC_CRASH_AT: 'x', KBSYNC_TOKNE: 't', KBSYNC_DEBUG: '1' } });
    assert.deepEqual(warnings, [
      'KBSYNC_SERVICE_BASEURL is not a kbsync option and is ignored (did you mean KBSYNC_SERVICE_BASE_URL?).',
      // The variables that are not options are names to suggest too (not KBSYNC_ROOT, the nearest option).
      'KBSYNC_TOKNE is not a kbsync option and is ignored (did you mean KBSYNC_TOKEN?).',
      'KBSYNC_WATCH_NOPE is not a kbsync option and is ignored.',
    ]);
  });

  test('with no file, the environment alone can configure a CI run', async (t) => {
    const dir = await tempDir(t);
    const { config, configPath } = await loadConfig({
      cwd: dir,
      env: { KBSYNC_WORKSPACE_ID: 'ws', KBSYNC_SERVICE_BASE_URL: 'http://127.0.0.1:1', KBSYNC_SERVICE_OPERATOR_ID: 'u', KBSYNC_ROOT: '.' },
    });
    assert.equal(configPath, null);
    assert.equal(config.root, dir);
  });

  test('a literal token in a group/other-readable file is a warning, and the token is registered as a secret', async (t) => {
    const dir = await tempDir(t);
    const token = 'literal-token-0123456789';
    const content = { ...minimal, service: { ...minimal.service, token: { value: token } } };
    await writeConfig(dir, content, 'sync.config.json', 0o644);
    const open = await loadConfig({ cwd: dir, env: {} });
    assert.equal(open.warnings.length, 1);
    assert.match(open.warnings[0] ?? '', /other users can read it \(mode 644\).*chmod 600/);
    assert.ok(!(open.warnings[0] ?? '').includes(token));
    assert.equal(redact(`header ${token}`), 'header [redacted]');
    await writeConfig(dir, content, 'sync.config.json', 0o600);
    assert.deepEqual((await loadConfig({ cwd: dir, env: {} })).warnings, []);
  });

  test('an invalid token entry never shows the token in the error', async (t) => {
    const dir = await tempDir(t);
    const token = 'never-show-me-42-abcdef';
    await writeConfig(dir, { ...minimal, service: { ...minimal.service, token: token } });
    const error = await failure(loadConfig({ cwd: dir, env: {} }));
    assert.match(error.message, /service\.token: expected one of .*, got a string/);
    assert.ok(!error.message.includes(token));
  });

  test('sync.config.example.json is valid and complete', async () => {
    const { config, warnings } = await loadConfig({ path: path.join(repoRoot, 'sync.config.example.json'), cwd: repoRoot, env: {} });
    assert.deepEqual(warnings, []);
    assert.equal(config.root, path.join(repoRoot, 'docs'));
    const example = JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(path.join(repoRoot, 'sync.config.example.json'), 'utf8'))) as Record<string, unknown>;
    // Complete: every option appears in the example.
    for (const option of ENV_OPTIONS) {
      const keyPath = option.replacesParent ? option.path.slice(0, -1) : option.path;
      let node: unknown = example;
      for (const key of keyPath) node = (node as Record<string, unknown>)[key];
      assert.notEqual(node, undefined, `${keyPath.join('.')} is missing from the example`);
    }
  });
});

test('site.root resolves from the config file; a base path must start with "/"; a local-only load needs no service settings', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kbsync-site-'));
  try {
    await writeFile(join(dir, 'sync.config.json'), JSON.stringify({ root: './docs/cli', site: { root: './docs' } }));
    await assert.rejects(loadConfig({ cwd: dir, env: {} }), /workspaceId/);
    const local = await loadConfig({ cwd: dir, env: {}, localOnly: true });
    assert.equal(local.config.site.root, join(dir, 'docs'));
    assert.deepEqual(local.unconfigured, ['workspaceId', 'service.baseUrl', 'service.operatorId']);
    await assert.rejects(loadConfig({ cwd: dir, env: { KBSYNC_SITE_BASE_PATH: 'docs' }, localOnly: true }), /KBSYNC_SITE_BASE_PATH[\s\S]*starts with "\/"/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
