/**
 * Short form of the broker-tcp fuzz target (`npm run fuzz -- --targets broker-tcp` runs the long
 * one): mutated and built request frames over a socket to a real in-process broker, with a probe
 * after every batch. No crash, no unanswered probe, and the inputs reach the handlers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuzzBroker } from '../../fuzz/broker-target.js';

const INPUTS = 3000;

test(`broker over TCP: ${INPUTS} fuzzed request frames, every probe answered, no crash`, {
  timeout: 120_000,
}, async () => {
  const seed = Number(process.env.RMQ_FUZZ_SEED ?? 20261203);
  const r = await fuzzBroker({ inputs: INPUTS, seed });
  assert.deepEqual(
    r.crashes.map((c) => c.what),
    [],
  );
  assert.deepEqual(
    r.hangs.map((h) => h.what),
    [],
  );
  assert.equal(r.inputs, INPUTS);
  assert.ok(r.probes >= INPUTS / 8, `only ${r.probes} probes`);
  const classes = [...r.outcomes.keys()];
  // Malformed frames close the connection; decodable ones get answers from many handlers.
  assert.ok(
    classes.some((c) => c.endsWith('connection closed')),
    classes.join('\n'),
  );
  assert.ok(classes.filter((c) => c.includes(' answered 0')).length > 10, classes.join('\n'));
});

/** Code 9999 has no handler; the fuzzer sends it now and then, so a planted processor gets called. */
const PLANTED_CODE = 9999;

test('broker over TCP: a processor that throws a TypeError is a crash finding', {
  timeout: 60_000,
}, async () => {
  const r = await fuzzBroker({
    inputs: 3000,
    seed: 1,
    onBrokerStarted: (broker) =>
      broker.remotingServer.registerProcessor(PLANTED_CODE, {
        processRequest: (_conn, request) => {
          const missing = request.extFields?.noSuchField as unknown as { length: number };
          return missing.length as never;
        },
      }),
  });
  assert.ok(r.crashes.length >= 1);
  assert.match(r.crashes[0]?.what ?? '', /request processor threw: Cannot read properties of undefined/);
  assert.ok((r.crashes[0]?.input.length ?? 0) > 0);
});

test('broker over TCP: a processor that blocks past the probe deadline is a hang finding', {
  timeout: 60_000,
}, async () => {
  const r = await fuzzBroker({
    inputs: 3000,
    seed: 1,
    probeDeadlineMs: 100,
    onBrokerStarted: (broker) =>
      broker.remotingServer.registerProcessor(PLANTED_CODE, {
        processRequest: () => {
          const until = performance.now() + 300;
          while (performance.now() < until) {
            // A handler stuck on its input.
          }
          return undefined;
        },
      }),
  });
  assert.equal(r.crashes.length, 0);
  assert.equal(r.hangs.length, 1);
  assert.match(r.hangs[0]?.what ?? '', /probe got no answer within 100 ms/);
});
