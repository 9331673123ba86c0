import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDoc, overwrite, withEmulator } from '../../helpers/emulator.js';

const EVIL_TITLE = '<script>alert("t")</script>';
const EVIL_BODY = `# Head <b>bold</b>

<img src=x onerror=alert(1)>

[click](javascript:alert(2)) and <script>alert(3)</script> and "quotes" & ampersands

![pic](javascript:alert(4))
`;

describe('emulator: read-only web view', () => {
  test('a document page renders its Markdown with every title and body string escaped', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, EVIL_TITLE);
      await overwrite(em, doc.docKey, EVIL_BODY);
      const response = await fetch(doc.url);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /text\/html/);
      assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      const html = await response.text();
      assert.doesNotMatch(html, /<script/i);
      assert.doesNotMatch(html, /<img src=x/i);
      assert.doesNotMatch(html, /<b>/);
      assert.doesNotMatch(html, /href="javascript:/i);
      assert.doesNotMatch(html, /src="javascript:/i);
      assert.match(html, /&#60;script&#62;alert\(&#34;t&#34;\)/, 'the title is shown, escaped');
      assert.match(html, /<h1 id="[a-z0-9-]+">Head &#60;b&#62;bold&#60;\/b&#62;<\/h1>/);
      assert.match(html, /&#38; ampersands/);
    }));

  test('headings carry GitHub-style ids, repeats numbered, so links to `URL#heading` land on them', () =>
    withEmulator(async (em) => {
      const doc = await createDoc(em, 'Anchors');
      await overwrite(em, doc.docKey, '# Install it\n\n## Install it\n\n## Café & co.\n');
      const html = await (await fetch(doc.url)).text();
      assert.match(html, /<h1 id="install-it">/);
      assert.match(html, /<h2 id="install-it-1">/);
      assert.match(html, /<h2 id="café--co">/);
    }));

  test('folder and workspace pages list their children as links; unknown ids are 404', () =>
    withEmulator(async (em) => {
      const folder = await createDoc(em, 'Guides', { docType: 'FOLDER' });
      const doc = await createDoc(em, 'Intro & <Setup>', { parentNodeId: folder.dentryUuid });
      const folderPage = await (await fetch(folder.url)).text();
      assert.ok(folderPage.includes(`<a href="${doc.url}">Intro &#38; &#60;Setup&#62;.adoc</a>`), folderPage);
      const workspacePage = await fetch(em.seed.workspaceUrl);
      assert.equal(workspacePage.status, 200);
      assert.ok((await workspacePage.text()).includes(`<a href="${folder.url}">Guides</a>`));
      assert.equal((await fetch(`${em.url}/i/nodes/nope`)).status, 404);
      assert.equal((await fetch(`${em.url}/i/spaces/nope`)).status, 404);
      assert.equal(em.admin.calls().total, 2, 'only the two creates count as service calls, not page views');
    }));
});
