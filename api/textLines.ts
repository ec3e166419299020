/**
 * Every answer that is text ends with a newline, as a terminal expects: `curl .../healthz` then `curl .../v1/...`
 * would otherwise print `{"status":"ok"}{}` on one line. JSON allows the whitespace, so no client minds it.
 */
import type { FastifyInstance } from 'fastify';

/** A JSON body as sent: the JSON text and its newline. */
export function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

const TEXTUAL = /^(?:application\/(?:[\w.+-]+\+)?json|text\/plain)\b/i;

/** The hook that ends each JSON or plain-text answer with a newline (after serialization, before the length is set). */
export function endAnswersWithNewline(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    if (typeof payload !== 'string' || payload.length === 0 || payload.endsWith('\n')) return payload;
    const type = reply.getHeader('content-type');
    return typeof type === 'string' && TEXTUAL.test(type) ? `${payload}\n` : payload;
  });
}
