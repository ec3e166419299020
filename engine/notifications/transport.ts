/**
 * One HTTP POST of a message, with node:http(s): no redirects followed, a deadline for the whole exchange, the
 * receiver's answer read up to EXCERPT_CHARS, and the connection's address checked by the URL policy when the name
 * is resolved (urlPolicy.ts), so a name that resolves to a private address is refused at send time too.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { EXCERPT_CHARS } from './records.js';
import { guardedLookup, refusedUrl, type UrlPolicy } from './urlPolicy.js';

export interface PostResult {
  /** Absent when there was no answer (refused, timed out, address not allowed). */
  status?: number;
  excerpt: string;
  durationMs: number;
}

export type Transport = (url: string, headers: Record<string, string>, body: string) => Promise<PostResult>;

/** The longest a delivery may take, connection to the end of the answer. */
export const DELIVERY_TIMEOUT_MS = 15_000;

export function httpTransport(policy: UrlPolicy, timeoutMs = DELIVERY_TIMEOUT_MS): Transport {
  const lookup = guardedLookup(policy);
  return (url, headers, body) =>
    new Promise<PostResult>((resolve) => {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const refused = refusedUrl(url, policy);
      if (refused !== undefined) return resolve({ excerpt: `refused: ${refused}`, durationMs: 0 });
      const send = url.startsWith('https:') ? httpsRequest : httpRequest;
      let settled = false;
      const finish = (result: PostResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = send(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Greenline-Webhooks',
          ...headers,
          'content-length': String(Buffer.byteLength(body)),
        },
        lookup: lookup as never,
        agent: false,
      });
      const timer = setTimeout(() => {
        request.destroy(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
      request.on('error', (error) => finish({ excerpt: error.message, durationMs: elapsed() }));
      request.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length < EXCERPT_CHARS) text += chunk;
        });
        response.on('error', (error) => finish({ excerpt: error.message, durationMs: elapsed() }));
        response.on('end', () =>
          finish({ status: response.statusCode ?? 0, excerpt: text.slice(0, EXCERPT_CHARS), durationMs: elapsed() }),
        );
      });
      request.end(body);
    });
}
