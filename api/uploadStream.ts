/**
 * The upload route's body, counted as it arrives (engine/flaky/streamingCaseCount.ts): an upload over the test-case
 * limit is refused 400 `too_many_test_cases` as soon as the chunk that crosses the limit is read, while the client is
 * still sending the rest, instead of after the whole body (up to 20 MiB) is read and parsed. The answer closes the
 * connection (what the client still sends is not read).
 */
import { Transform } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_TEST_CASES_PER_UPLOAD } from '../engine/flaky/index.js';
import { StreamingCaseCounter } from '../engine/flaky/streamingCaseCount.js';
import { engineError } from '../engine/model/errors.js';

/** The upload endpoint's path under /v1. */
export const UPLOAD_PATH = 'flaky-tests/upload';

/** A preParsing hook: the body passes through unchanged, counted on its way; over the limit, the read fails. */
export async function countCasesWhileReading(
  _request: FastifyRequest,
  _reply: FastifyReply,
  payload: NodeJS.ReadableStream,
): Promise<NodeJS.ReadableStream> {
  const counter = new StreamingCaseCounter();
  const limit = MAX_TEST_CASES_PER_UPLOAD;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      counter.write(chunk);
      if (counter.count > limit) return done(engineError('too_many_test_cases', { limit }));
      done(null, chunk);
    },
  });
  payload.on('error', (error) => counted.destroy(error));
  return payload.pipe(counted);
}
