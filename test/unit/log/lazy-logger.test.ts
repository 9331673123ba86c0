import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger } from '../../../src/log.js';

/** A destination that keeps each line pino writes. */
function lines(): { stream: Writable; written: string[] } {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, written };
}

test('a logger writes only lines at or above its level, and follows a level set later', async () => {
  const { stream, written } = lines();
  const logger = createLogger({ level: 'warn', destination: stream });
  logger.info('not shown');
  logger.debug('not shown either');
  assert.deepEqual(written, []);
  logger.warn('shown');
  logger.level = 'debug';
  logger.debug('now shown');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(written.map((line) => (JSON.parse(line) as { msg: string }).msg), ['shown', 'now shown']);
});

test('an unknown level is refused at once, even one that names an object property', () => {
  for (const level of ['loud', 'constructor', 'toString']) {
    assert.throws(() => createLogger({ level, destination: lines().stream }), /Unknown log level/, level);
    const logger = createLogger({ level: 'info', destination: lines().stream });
    assert.throws(() => {
      logger.level = level;
    }, /Unknown log level/, `set to ${level}`);
  }
});
