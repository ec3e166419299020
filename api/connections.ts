/**
 * What happens on a connection before and after Fastify: every client gets a final answer it can read.
 * - `Expect: 100-continue` (curl sends it for any body over 1 KiB): a body declared over the limit is answered 413
 *   from its headers, before any `100 Continue`, so the client never sends it. Otherwise the request goes on, and
 *   the 100 only once its body is about to be read (`continueBeforeBody`): after the rate limit and the access
 *   check, so a 401, 404 or 429 comes before any 100 too (Node then closes the connection: no body is owed).
 * - A connection closed while the client is still sending (an answer before the whole body: 413, 401, 400…) closes
 *   lingering: our side ends after the answer, the rest of the body is read and dropped until the client closes
 *   (at most LINGER_MS). Closing at once with unread bytes makes the kernel send a reset, and a reset destroys the
 *   answer still unread in the client's buffer: on a busy machine curl saw `100` and then nothing.
 * - An HTTP/1.1 request without Host, CONNECT, and an `Expect` other than 100-continue: in the error shape too.
 * - Requests Node's parser refuses (a malformed request line, headers too large, a request not received in time) are
 *   answered in the one error shape (Fastify's `clientErrorHandler`).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorReply, type ErrorReply } from './errors.js';
import { jsonLine } from './textLines.js';

export const LINGER_MS = 5_000;

const REQUEST = Symbol('greenline.request');
type Tracked = Socket & { [REQUEST]?: IncomingMessage };
const AWAITING_CONTINUE = Symbol('greenline.awaitingContinue');
type Expecting = IncomingMessage & { [AWAITING_CONTINUE]?: boolean };

function rawAnswer(error: ErrorReply, reason: string): string {
  const body = jsonLine(error.body);
  return `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Ends our side now and the connection once the client closes it (or after LINGER_MS), reading what it still sends. */
export function lingeringClose(socket: Socket): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.end();
  // The HTTP parser reads (and drops) a body it is given; a socket it let go of is read here.
  if (socket.listenerCount('data') === 0) socket.on('data', () => undefined);
  socket.resume();
}

/** Installs the handlers above on the app's server (`bodyLimit` in bytes). */
export function guardConnections(server: Server, bodyLimit: number, limitText: string): void {
  server.on('connection', (socket: Tracked) => {
    const destroySoon = socket.destroySoon.bind(socket);
    // Node calls destroySoon once the last answer of a connection marked `close` is sent.
    socket.destroySoon = () => {
      const request = socket[REQUEST];
      if (request !== undefined && !request.complete) lingeringClose(socket);
      else destroySoon();
    };
  });
  server.on('request', (request: IncomingMessage) => {
    (request.socket as Tracked)[REQUEST] = request;
  });
  // CONNECT is no method of this service; Node would drop the connection without a word.
  server.on('connect', (_request: IncomingMessage, socket: Socket) => {
    socket.write(rawAnswer(errorReply('method_not_allowed', { method: 'CONNECT' }), 'Method Not Allowed'));
    lingeringClose(socket);
  });
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    (request.socket as Tracked)[REQUEST] = request;
    expectationFailed(request, response);
  });
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    (request.socket as Tracked)[REQUEST] = request;
    const declared = Number(request.headers['content-length']);
    if (declared > bodyLimit) {
      const error = errorReply('payload_too_large', { limit: limitText });
      response.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      response.end(jsonLine(error.body));
      return;
    }
    (request as Expecting)[AWAITING_CONTINUE] = true;
    server.emit('request', request, response);
  });
}

/** An onRequest hook: HTTP/1.1 requires a Host header (Node would answer a bare 400; we check it, in the error shape). */
export async function requireHost(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.raw.httpVersion !== '1.1' || request.headers.host !== undefined) return;
  const error = errorReply('bad_request', { noHost: true });
  await reply.code(error.status).header('connection', 'close').type('application/json; charset=utf-8').send(error.body);
}

/** A preParsing hook: the `100 Continue` a request with `Expect: 100-continue` waits for, now that its body is read. */
export async function continueBeforeBody<Payload>(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: Payload,
): Promise<Payload> {
  const raw = request.raw as Expecting;
  if (raw[AWAITING_CONTINUE] === true) {
    raw[AWAITING_CONTINUE] = false;
    reply.raw.writeContinue();
  }
  return payload;
}

/**
 * A preHandler hook: the request is read whole, and what remains is the server's work (a large upload stored in
 * batches, an answer waiting for the sync that makes its write durable), which may outlast the idle timeout
 * (GREENLINE_IDLE_TIMEOUT) on a slow or busy machine: Node then destroyed the socket, and the client got no answer to
 * a request that still completed. The client owes nothing now, so the idle timeout is lifted until the answer is sent;
 * then Node arms the keep-alive timeout (or, without one, the idle timeout is put back).
 */
export async function noIdleTimeoutWhileWorking(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const socket = request.raw.socket as Socket | null;
  if (socket === null || socket.timeout === undefined || socket.timeout === 0) return;
  const idle = socket.timeout;
  socket.setTimeout(0);
  reply.raw.once('finish', () => {
    if (socket.timeout === 0 && !socket.destroyed) socket.setTimeout(idle);
  });
}

/** Node answers an `Expect` it does not know with a bare 417: the error shape instead. */
function expectationFailed(request: IncomingMessage, response: ServerResponse): void {
  const error = errorReply('expectation_failed', { expect: String(request.headers.expect) });
  response.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
  response.end(jsonLine(error.body));
}

/** Fastify's `clientErrorHandler`: the parser's refusals in the one error shape, and a lingering close. */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      socket.write(rawAnswer(errorReply('request_timeout'), 'Request Timeout'));
    } else if (error.code === 'HPE_HEADER_OVERFLOW') {
      socket.write(rawAnswer(errorReply('headers_too_large'), 'Request Header Fields Too Large'));
    } else {
      socket.write(rawAnswer(errorReply('bad_request', { malformed: error.code ?? 'parse error' }), 'Bad Request'));
    }
  }
  lingeringClose(socket);
}
