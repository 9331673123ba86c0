import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAction, runAction } from '../../helpers/action-runner.js';
import { withEmulator } from '../../helpers/emulator.js';
import { userNodes } from '../../helpers/sync-fixture.js';

const WRITES = ['createDocument', 'deleteDocument', 'overwriteContent', 'appendText'] as const;

test('action.yml declares the inputs the README shows and runs kbsync from its own checkout', async () => {
  const action = await readAction();
  for (const input of ['mode', 'root', 'token', 'state-key', 'base-url', 'operator-id', 'workspace-id', 'check-links', 'site-root']) assert.ok(input in action.inputs, input);
  assert.equal(action.inputs['mode']?.default, 'publish');
  assert.ok(action.runs.steps.some((step) => step.run?.includes('$GITHUB_ACTION_PATH')));
});

test('the GitHub Action, run step by step as a runner would: publish with annotations and a job summary, preview changes nothing, check-links needs no token', async () => {
  await withEmulator(
    async (em) => {
      const workspace = await mkdtemp(join(tmpdir(), 'kbsync-action-'));
      try {
        await mkdir(join(workspace, 'docs', 'guides'), { recursive: true });
        await writeFile(join(workspace, 'docs', 'index.md'), '# Handbook\n\nStart with [setup](/guides/setup).\nSee [the gone page](/guides/gone).\n');
        await writeFile(join(workspace, 'docs', 'guides', 'setup.md'), '# Setup\n\nBack [home](../).\n');
        const service = { 'base-url': em.seed.baseUrl, 'operator-id': em.seed.operatorId, 'workspace-id': em.seed.workspaceId, 'state-key': 'action-test-state-key-0123456789' };

        const publish = await runAction({ mode: 'publish', root: 'docs', token: em.seed.token, ...service }, workspace);
        assert.equal(publish.code, 0, publish.stderr + publish.stdout);
        assert.deepEqual(publish.skipped, ['actions/setup-node@v4']);
        assert.deepEqual(userNodes(em.admin.dump().nodes).filter((n) => n.docType === 'DOC').map((n) => n.title).sort(), ['Handbook', 'Setup']);
        assert.match(publish.stdout, /^::warning file=docs\/index\.md,line=4,col=5,title=LINK_BROKEN::Broken link \[the gone page\]\(\/guides\/gone\): there is no file guides\/gone/m);
        assert.match(publish.summary, /### ✅ kbsync push\n\n\| Created \| Updated \| Moved \| Renamed \| Deleted \| Held \| Failed \| Refused \| Broken links \|\n\|---\|---\|---\|---\|---\|---\|---\|---\|---\|\n\| 2 \| 0 \| 0 \| 0 \| 0 \| 0 \| 0 \| 0 \| 1 \|/);
        assert.match(publish.summary, /\| `index\.md` \| created \|/);

        await writeFile(join(workspace, 'docs', 'guides', 'setup.md'), '# Setup\n\nBack [home](../). Now with more.\n');
        const writes = () => WRITES.reduce((sum, name) => sum + em.admin.calls().byEndpoint[name].calls, 0);
        const before = writes();
        const preview = await runAction({ mode: 'preview', root: 'docs', token: em.seed.readOnlyToken, ...service }, workspace);
        assert.equal(preview.code, 0, preview.stderr + preview.stdout);
        assert.match(preview.stdout, /## kbsync: what merging would publish[\s\S]*- `guides\/setup\.md`: 1 block changed/);
        assert.match(preview.summary, /## kbsync: what merging would publish/);
        assert.match(preview.outputs['preview-file'] ?? '', /kbsync-preview\.md$/);
        assert.equal(writes(), before, 'preview changed nothing');

        const check = await runAction({ mode: 'check-links', root: 'docs' }, workspace);
        assert.equal(check.code, 5, check.stderr + check.stdout);
        assert.match(check.stdout, /^::error file=docs\/index\.md,line=4,col=5,title=LINK_BROKEN::Broken link \[the gone page\]\(\/guides\/gone\)/m);
        assert.match(check.summary, /kbsync: link check/);
        assert.match(check.summary, /^Link check: 2 files, 3 links \(0 to other sites, left alone\): 1 broken \(1 missing\)\.$/m);
        assert.match(check.stdout, /^::notice title=kbsync link check::Link check: 2 files, 3 links/m);
        await writeFile(join(workspace, 'docs', 'index.md'), '# Handbook\n\nStart with [setup](/guides/setup).\n');
        assert.equal((await runAction({ mode: 'check-links', root: 'docs' }, workspace)).code, 0);

        const wrong = await runAction({ mode: 'publsh' }, workspace);
        assert.equal(wrong.code, 2);
        assert.match(wrong.stdout, /::error title=kbsync::The mode input must be publish, preview or check-links/);
        assert.equal(await readFile(join(workspace, 'docs', 'index.md'), 'utf8'), '# Handbook\n\nStart with [setup](/guides/setup).\n', 'the action never writes the repository');
      } finally {
        await rm(workspace, { recursive: true, force: true });
      }
    },
    { rateLimit: 0 },
  );
});
