import { test } from 'node:test';
import assert from 'node:assert/strict';
import { logReport } from '../../../src/daemon/cycle-log.js';
import type { Logger } from '../../../src/log.js';
import { buildReport } from '../../../src/sync/views/report.js';

test('the daemon logs the broken links of the files a cycle sent, with file, line, column, the link as written and code', () => {
  const warnings: { fields: Record<string, unknown>; message: string }[] = [];
  const logger = { warn: (fields: Record<string, unknown>, message: string) => warnings.push({ fields, message }), info() {}, debug() {} } as unknown as Logger;
  const report = buildReport({
    options: { mode: 'two-way', dryRun: false },
    planned: [],
    pending: [],
    results: [],
    problems: [],
    conflictCopies: [],
    skipped: [],
    links: [{ path: 'guide.md', line: 7, column: 5, target: '/gone', written: '[the guide](/gone)', reason: 'missing', message: 'there is no file gone' }],
    resumed: 0,
    interrupted: false,
    calls: 0,
    endpointCalls: {},
    durationMs: 1,
  });
  logReport(logger, 'local', report, new Set());
  assert.deepEqual(warnings, [{ fields: { path: 'guide.md', line: 7, code: 'LINK_BROKEN', reason: 'missing' }, message: 'guide.md:7:5: broken link [the guide](/gone): there is no file gone' }]);
});
