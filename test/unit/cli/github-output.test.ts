import { test } from 'node:test';
import assert from 'node:assert/strict';
import { annotationsOf, escapeData, escapeProperty, jobSummary, workflowCommand } from '../../../src/cli/output/github.js';
import { buildReport } from '../../../src/sync/views/report.js';

test('workflow commands escape % CR LF in messages, and : , too in properties (GitHub rules); a message is one line', () => {
  assert.equal(escapeData('50% done\r\nnext'), '50%25 done%0D%0Anext');
  assert.equal(escapeProperty('a:b,c%\n'), 'a%3Ab%2Cc%25%0A');
  assert.equal(
    workflowCommand({ level: 'error', file: 'docs/a,b:c\n✓ x.md', line: 3, title: 'LINK_BROKEN', message: 'Broken link "x\n✓ FAKE: all synced" in 100%' }),
    // The file as it is (GitHub decodes %0A back), the message's line break shown, not made (GitHub would show %0A as one).
    '::error file=docs/a%2Cb%3Ac%0A✓ x.md,line=3,title=LINK_BROKEN::Broken link "x\\u000a✓ FAKE: all synced" in 100%25',
  );
  assert.equal(workflowCommand({ level: 'notice', message: 'plain' }), '::notice::plain');
});

const report = buildReport({
  options: { mode: 'push', dryRun: false },
  planned: [],
  pending: [],
  results: [
    { action: 'create', path: 'new.md', ok: true, result: 'pushed' },
    { action: 'held', path: 'held.md', ok: true, result: 'held', detail: 'it is empty now' },
    { action: 'push', path: 'bad|pipe.md', ok: false, code: 'API_SERVER', error: 'the service failed' },
    { action: 'delete-remote', path: 'gone.md', ok: true, result: 'unchanged', detail: 'deleted' },
  ],
  problems: [{ path: 'latin1.md', code: 'FILE_NOT_UTF8', message: 'not UTF-8' }],
  conflictCopies: [],
  skipped: [],
  links: [{ path: 'new.md', line: 4, column: 3, target: '/nope', written: '[see](/nope)', reason: 'missing', message: 'there is no file nope' }],
  resumed: 0,
  interrupted: false,
  calls: 5,
  endpointCalls: {},
  durationMs: 10,
});

test('annotations cover broken links, refused files, failed and held writes; links are errors only under --check-links', () => {
  const notes = annotationsOf(report, (rel) => `docs/${rel}`, false);
  assert.deepEqual(
    notes.map((n) => [n.level, n.file, n.line, n.title]),
    [
      ['warning', 'docs/new.md', 4, 'LINK_BROKEN'],
      ['error', 'docs/latin1.md', undefined, 'FILE_NOT_UTF8'],
      ['warning', 'docs/held.md', undefined, 'held'],
      ['error', 'docs/bad|pipe.md', undefined, 'API_SERVER'],
    ],
  );
  assert.equal(annotationsOf(report, (rel) => rel, true)[0]?.level, 'error');
});

test('the job summary counts what was published and lists each file, refused file and broken link', () => {
  const summary = jobSummary(report, 'kbsync push').join('\n');
  assert.match(summary, /\| Created \| Updated \| Moved \| Renamed \| Deleted \| Held \| Failed \| Refused \| Broken links \|\n\|---\|---\|---\|---\|---\|---\|---\|---\|---\|\n\| 1 \| 0 \| 0 \| 0 \| 1 \| 1 \| 1 \| 1 \| 1 \|/);
  assert.match(summary, /\| `bad\\|pipe.md` \| failed \| the service failed \[API_SERVER\] \|/);
  assert.match(summary, /\| `new.md` \| 4:3 \| `\[see\]\(\/nope\)` \| there is no file nope \|/);
  assert.match(summary, /\| `latin1.md` \| not UTF-8 \[FILE_NOT_UTF8\] \|/);
});
