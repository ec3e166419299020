/**
 * Issue 27 (7): a body over 20 MiB, the way curl sends it. `Expect: 100-continue` with a declared length over the
 * limit is answered 413 from the headers, before any `100`; and when a client sends a body the server will not
 * read (it gave up waiting for the `100`, as curl does after a second on a busy machine, or its chunked body passes
 * the limit mid-stream), it still gets its final status: the connection closes lingering, so the client's writes
 * never fail with a reset and the answer waits in its buffer. Raw sockets: the requests are exactly these bytes.
 */
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseResponses, rawRequest } from '../../bench/rawHttp.js';
import { buildServer } from '../../api/server.js';
import { Engine } from '../../engine/engine.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore } from '../../engine/store/index.js';
import { syncConfiguredTokens } from '../../engine/tokens.js';
import { START, TOKENS } from '../api/harness.js';

let app: FastifyInstance;
let engine: Engine;
let port: number;
beforeAll(async () => {
  const store = createMemoryStore();
  syncConfiguredTokens(store, [{ org: 'acme', token: TOKENS.acme }], new Date(START).toISOString());
  engine = new Engine(store, { scheduler: new VirtualScheduler(START) });
  engine.start();
  app = await buildServer({ engine });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});
afterAll(async () => {
  engine.stop();
  await app.close();
});

const MiB = 1024 * 1024;
const head = (extra: string) =>
  `POST /v1/getQueue HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-token: ${TOKENS.acme}\r\nContent-Type: application/json\r\n${extra}`;

/**
 * Sends the head, then (without reading anything: a client busy sending) the whole body, then reads what came.
 * `writeError` is how a write failed (a reset), if one did.
 */
function pushBody(
  requestHead: string,
  pieces: Iterable<Buffer>,
): Promise<ReturnType<typeof parseResponses> & { writeError?: string }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    const received: Buffer[] = [];
    let writeError: string | undefined;
    socket.on('error', (error: NodeJS.ErrnoException) => {
      writeError ??= error.code ?? error.message;
    });
    socket.on('close', () =>
      resolve({ ...parseResponses(Buffer.concat(received)), ...(writeError === undefined ? {} : { writeError }) }),
    );
    socket.on('data', (chunk) => received.push(chunk));
    const iterator = pieces[Symbol.iterator]();
    const write = () => {
      for (let next = iterator.next(); !next.done; next = iterator.next()) {
        if (socket.destroyed) return;
        if (!socket.write(next.value)) return void socket.once('drain', write);
      }
      // All sent: now read the answer, and end our side once the server ended its.
      socket.once('end', () => socket.end());
      socket.resume();
    };
    socket.write(`${requestHead}\r\n\r\n`);
    write();
  });
}

function* bytes(total: number, piece = 256 * 1024): Generator<Buffer> {
  for (let sent = 0; sent < total; sent += piece) yield Buffer.alloc(Math.min(piece, total - sent), 0x20);
}

function* chunked(total: number, piece = 256 * 1024): Generator<Buffer> {
  for (const part of bytes(total, piece))
    yield Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]);
  yield Buffer.from('0\r\n\r\n');
}

it('answers 413 from the headers before any 100 Continue when the declared body is over 20 MiB', async () => {
  const answer = await rawRequest(port, head(`Content-Length: ${25 * MiB}\r\nExpect: 100-continue`));
  expect(answer.statuses).toEqual([413]);
  expect(JSON.parse(answer.body)).toMatchObject({ code: 'payload_too_large', reason: 'payload_too_large' });
});

it('sends 100 Continue for a body within the limit, then the final answer', async () => {
  const body = JSON.stringify({ repo: { host: 'github.com', owner: 'acme', name: 'w' }, targetBranch: 'main' });
  const answer = await new Promise<ReturnType<typeof parseResponses>>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk) => {
      received.push(chunk);
      // The body goes only once the 100 came.
      if (Buffer.concat(received).toString('latin1').startsWith('HTTP/1.1 100') && received.length === 1)
        socket.write(body);
    });
    socket.on('close', () => resolve(parseResponses(Buffer.concat(received))));
    socket.write(
      `${head(`Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close`)}\r\n\r\n`,
    );
  });
  expect(answer.statuses).toEqual([100, 404]);
  expect(JSON.parse(answer.body)).toMatchObject({ reason: 'queue_not_found' });
});

it('answers 401 before any 100 Continue when the token is missing: the body is never asked for', async () => {
  const answer = await rawRequest(
    port,
    `POST /v1/flaky-tests/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${MiB}\r\nExpect: 100-continue`,
  );
  expect(answer.statuses).toEqual([401]);
  expect(JSON.parse(answer.body)).toMatchObject({ reason: 'unauthorized' });
});

it('a client that sends its 25 MiB body anyway (it gave up waiting for the 100) gets its 413, and no reset', async () => {
  const answer = await pushBody(head(`Content-Length: ${25 * MiB}\r\nExpect: 100-continue`), bytes(25 * MiB));
  expect(answer.writeError).toBeUndefined();
  expect(answer.statuses).toEqual([413]);
});

it('a declared body over the limit sent without Expect gets its 413, and no reset', async () => {
  const answer = await pushBody(head(`Content-Length: ${25 * MiB}`), bytes(25 * MiB));
  expect(answer.writeError).toBeUndefined();
  expect(answer.statuses).toEqual([413]);
});

it('a chunked body that passes the limit mid-stream gets its 413, and no reset', async () => {
  const answer = await pushBody(head('Transfer-Encoding: chunked'), chunked(24 * MiB));
  expect(answer.writeError).toBeUndefined();
  expect(answer.statuses).toEqual([413]);
  expect(JSON.parse(answer.body)).toMatchObject({ reason: 'payload_too_large' });
});
