/** parseCliArgs: node:util parseArgs, but a negative number after a value-taking option is its value. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { joinNegativeValues, parseCliArgs } from '../../../src/cli/parse-args.js';

const options = {
  'dashboard-port': { type: 'string' },
  port: { type: 'string', short: 'p' },
  verbose: { type: 'boolean', short: 'v' },
} as const;

test('a negative number after a string option is its value, long or short', () => {
  const { values } = parseCliArgs({
    args: ['--dashboard-port', '-1', '-p', '-2.5', '-v'],
    options,
    strict: true,
  });
  assert.deepEqual({ ...values }, { 'dashboard-port': '-1', port: '-2.5', verbose: true });
});

test('anything else is left to parseArgs: a boolean flag before -1, an option after --, a missing value', () => {
  assert.deepEqual(joinNegativeValues(['-v', '-1'], options), ['-v', '-1']);
  assert.deepEqual(joinNegativeValues(['--', '--port', '-1'], options), ['--', '--port', '-1']);
  assert.throws(() => parseCliArgs({ args: ['--port', '-x'], options, strict: true }), /ambiguous/);
});
