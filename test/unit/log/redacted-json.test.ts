import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redact, redactedJson, registerSecret } from '../../../src/secrets.js';

test('a report as redacted JSON masks every secret, and is the text a redacted copy of it printed', () => {
  const secret = 'tok-redacted-json-5f1c2a9e';
  registerSecret(secret);
  const report = {
    ok: false,
    results: [{ path: `notes/${secret}.md`, ok: false, error: `the service refused ${secret}: "quoted" \\ back\tslash`, detail: 'é ✓ \u2028' }],
    counts: { '10': 1, pushed: 2, [secret]: 3 },
    nested: [[1.5, -0, 1e21, null, true]],
  };
  const text = redactedJson(report);
  assert.equal(text.includes(secret), false);
  // What the reports printed before: a deep copy masked through its JSON, written again.
  assert.equal(text, JSON.stringify(JSON.parse(redact(JSON.stringify(report)))));
});
