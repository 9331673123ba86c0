import { test } from 'node:test';
import assert from 'node:assert/strict';
import { logReport } from '../../../src/daemon/cycle-log.js';
import type { Logger } from '../../../src/log.js';
import { buildReport } from '../../../src/sync/views/report.js';

type Link = Parameters<typeof buildReport>[0]['links'][number];
const GONE: Link = { path: 'guide.md', line: 7, column: 5, target: '/gone', written: '[the guide](/gone)', reason: 'missing', message: 'there is no file gone' };

/** A cycle's report that sent guide.md with these broken links. */
const cycle = (links: readonly Link[]) =>
  buildReport({
    options: { mode: 'two-way', dryRun: false },
    planned: [],
    pending: [],
    results: [{ path: 'guide.md', action: 'push', ok: true, result: 'pushed' }],
    problems: [],
    conflictCopies: [],
    skipped: [],
    links,
    resumed: 0,
    interrupted: false,
    calls: 0,
    endpointCalls: {},
    durationMs: 1,
  });

const recorder = () => {
  const warnings: { fields: Record<string, unknown>; message: string }[] = [];
  const logger = { warn: (fields: Record<string, unknown>, message: string) => warnings.push({ fields, message }), info() {}, debug() {} } as unknown as Logger;
  return { warnings, logger };
};

test('the daemon logs the broken links of the files a cycle sent, with file, line, column, the link as written and code', () => {
  const { warnings, logger } = recorder();
  logReport(logger, 'local', cycle([GONE]), new Set());
  assert.deepEqual(warnings, [{ fields: { path: 'guide.md', line: 7, code: 'LINK_BROKEN', reason: 'missing' }, message: 'guide.md:7:5: broken link [the guide](/gone): there is no file gone' }]);
});

// Soak seed 11: the same broken links said at every send of their files, 1,273 times.
test('a link that stays broken through later sends of its file is said once; fixed and broken again, it is said again', () => {
  const { warnings, logger } = recorder();
  const said = new Map<string, ReadonlySet<string>>();
  logReport(logger, 'local', cycle([GONE]), new Set(), 'info', said);
  logReport(logger, 'local', cycle([{ ...GONE, line: 9 }]), new Set(), 'info', said);
  assert.equal(warnings.length, 1, 'moved down two lines by an edit: the same link, not news');
  logReport(logger, 'local', cycle([]), new Set(), 'info', said);
  logReport(logger, 'local', cycle([GONE]), new Set(), 'info', said);
  assert.equal(warnings.length, 2, 'fixed, then broken again: news');
});

// A file not sent is reported for its links to a document the cycle deleted: only those were checked.
test('links reported of a file that was not sent (to a document deleted) leave what was said of its other links standing', () => {
  const { warnings, logger } = recorder();
  const said = new Map<string, ReadonlySet<string>>();
  const ORPHAN: Link = { ...GONE, line: 9, target: 'old.md', written: '[old](old.md)', message: 'its document was deleted' };
  logReport(logger, 'local', cycle([GONE]), new Set(), 'info', said);
  logReport(logger, 'local', { ...cycle([ORPHAN]), results: [] }, new Set(), 'info', said);
  assert.deepEqual(warnings.map((w) => w.message.replace(/:.*? broken link /, ' ').replace(/:.*/, '')), ['guide.md [the guide](/gone)', 'guide.md [old](old.md)']);
  logReport(logger, 'local', cycle([GONE, ORPHAN]), new Set(), 'info', said);
  assert.equal(warnings.length, 2, 'sent with both still broken: neither is news');
});

type Image = Parameters<typeof buildReport>[0]['images'] extends readonly (infer I)[] | undefined ? I : never;
const LOGO: Image = { path: 'guide.md', line: 4, target: 'media/logo.svg', reason: 'missing', message: 'there is no file media/logo.svg' };

// Soak 733: a missing image said at every send of its file (one logo, at each of seven edits of its page).
test('an image that stays unpublished through later sends of its file is said once; found and lost again, it is said again', () => {
  const { warnings, logger } = recorder();
  const said = new Map<string, ReadonlySet<string>>();
  const withImages = (images: readonly Image[]) => ({ ...cycle([GONE]), images });
  logReport(logger, 'local', withImages([LOGO]), new Set(), 'info', said);
  assert.deepEqual(warnings.map((w) => w.fields.code), ['LINK_BROKEN', 'IMAGE_NOT_PUBLISHED']);
  logReport(logger, 'local', withImages([{ ...LOGO, line: 6 }]), new Set(), 'info', said);
  assert.equal(warnings.length, 2, 'moved down by an edit: the same image and link, not news');
  logReport(logger, 'local', withImages([]), new Set(), 'info', said);
  assert.equal(warnings.length, 2, 'the image found: nothing to say of it, and the link still stands');
  logReport(logger, 'local', withImages([LOGO]), new Set(), 'info', said);
  assert.deepEqual(warnings.map((w) => w.fields.code), ['LINK_BROKEN', 'IMAGE_NOT_PUBLISHED', 'IMAGE_NOT_PUBLISHED'], 'lost again: news');
});

// Issue 44: a daemon's restart told again each file refused for what it holds, unchanged since an earlier run said it.
test('a refusal an earlier run said of the same bytes (repeated) is no warning; a new one is', () => {
  const { warnings, logger } = recorder();
  const refused = (repeated: boolean) => ({ ...cycle([]), problems: [{ path: 'big.md', code: 'FILE_TOO_LARGE' as const, message: 'over 50,000 characters', ...(repeated ? { repeated: true as const } : {}) }] });
  logReport(logger, 'local', refused(true), new Set());
  assert.equal(warnings.length, 0, 'said before: no news');
  logReport(logger, 'local', refused(false), new Set());
  assert.deepEqual(warnings.map((w) => w.fields.code), ['FILE_TOO_LARGE']);
});
