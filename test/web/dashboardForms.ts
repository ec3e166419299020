/**
 * The dashboard as a browser uses it, over Fastify inject (test/web/http.test.ts, liveFeed.test.ts): signing in with
 * a token, opening a page (asking for HTML), posting a form with the session's CSRF token, and a queue to act on.
 */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { queueBody, type Api } from '../api/harness.js';

/** The helpers, on the service `current()` answers (each test makes its own). */
export function dashboardForms(current: () => Api) {
  const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

  async function signIn(token: string): Promise<string> {
    const response = await current().app.inject({
      method: 'POST',
      url: '/signin',
      headers: FORM,
      payload: `token=${encodeURIComponent(token)}&next=%2Fcharts`,
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/charts');
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toMatch(/^greenline_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    expect(cookie).not.toContain(token);
    return cookie.split(';')[0]!;
  }

  /** A page opened by a browser (which asks for HTML). */
  const get = (url: string, cookie?: string) =>
    current().app.inject({
      method: 'GET',
      url,
      headers: { accept: 'text/html,*/*', ...(cookie === undefined ? {} : { cookie }) },
    });
  /** The session's CSRF token, as its pages carry it in every form that posts. */
  async function csrfOf(cookie: string): Promise<string> {
    const token = /name="_csrf" value="([^"]+)"/.exec((await get('/', cookie)).body)?.[1];
    if (token === undefined) throw new Error('no CSRF token on the page');
    return token;
  }
  const post = async (url: string, payload: string, cookie: string, extra: Record<string, string> = {}) =>
    current().app.inject({
      method: 'POST',
      url,
      headers: { ...FORM, cookie, ...extra },
      payload: `_csrf=${await csrfOf(cookie)}${payload === '' ? '' : `&${payload}`}`,
    });

  /** A page opened without a (valid) session goes to the sign-in page, to come back after. */
  function expectSignIn(response: LightMyRequestResponse, url: string) {
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/signin?next=${encodeURIComponent(url)}`);
  }

  async function makeQueue(): Promise<string> {
    expect((await current().post('createQueue', queueBody())).statusCode).toBe(200);
    return current().engine.listQueues('acme')[0]!.id;
  }

  return { FORM, signIn, get, csrfOf, post, expectSignIn, makeQueue };
}
