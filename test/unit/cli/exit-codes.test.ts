import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, type ApiErrorCode } from '../../../src/api/errors.js';
import { ExitCode, exitCodeOf } from '../../../src/cli/exit-codes.js';
import { CODE_TABLE, ERROR_EXITS, type ErrorCode } from '../../../src/codes.js';
import { InputError, KbsyncError, SafetyError } from '../../../src/errors.js';
import { QueueClosedError } from '../../../src/queue/errors.js';

/** Every way an error of `code` is made in src/: the same code must end a command alike from each. */
const throwers = (code: ErrorCode): KbsyncError[] => [
  new KbsyncError(code, 'x'),
  new InputError(code, 'x'),
  new SafetyError(code, 'x'),
  ...(code.startsWith('API_') ? [new ApiError(code as ApiErrorCode, 'x', { endpoint: 'getWorkspace' })] : []),
  ...(code === 'QUEUE_CLOSED' ? [new QueueClosedError('x')] : []),
];

describe('exit codes come from the code table', () => {
  test('every code exits as its row says, whichever error class throws it (LEDGER_CORRUPT once exited 3 from one file and 1 from another)', () => {
    const wrong = CODE_TABLE.flatMap((row) => Object.entries(row.codes) as [ErrorCode, keyof typeof ExitCode][]).flatMap(([code, exit]) =>
      throwers(code)
        .filter((error) => exitCodeOf(error) !== ExitCode[exit])
        .map((error) => `${error.constructor.name}('${code}') exits ${exitCodeOf(error)}, the table says ${exit} (${ExitCode[exit]})`),
    );
    assert.deepEqual(wrong, []);
  });

  test('an error without a code of ours exits as UNEXPECTED', () => {
    assert.equal(ERROR_EXITS.UNEXPECTED, 'partial');
    for (const error of [new Error('x'), 'a string', undefined, Object.assign(new Error('x'), { code: 'EACCES' })]) assert.equal(exitCodeOf(error), ExitCode.partial);
  });
});
