/** The page shell every dashboard page shares: header with the organization and sign-out, navigation, the live region. */
import { html, type Html } from './html.js';

export interface PageOptions {
  title: string;
  /** The signed-in organization; absent on the sign-in page. */
  org?: string;
  /** What this page shows live: a queue id (it refreshes on that queue's changes) or `all` (on any change). */
  live?: string;
  /** The live feed's version when the page was made: the page redraws at once if the feed has moved on since. */
  version?: string;
  /** The session's CSRF token: every form that posts carries it (a field), and so do htmx's requests (a header). */
  csrf?: string;
  /** Whether the session may administer the organization: its navigation then links the webhooks page. */
  admin?: boolean;
  /** The server's clock when the page was made (ms): the page's script words its relative times from it. */
  now?: number;
  /** Markup outside the live region (forms that must not be redrawn while someone types). */
  aside?: Html;
  body: Html;
}

/**
 * htmx settings: error responses (400, 404, 409) are drawn too, so a refused form says why; no inline styles are
 * injected (the pages' content security policy allows no inline script).
 */
const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  responseHandling: [
    { code: '204', swap: false },
    { code: '[2345]..', swap: true },
  ],
});

/** The name of the CSRF field of a form, and of the header htmx sends it in. */
export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/** Every form of the page that posts gets the session's CSRF token as a hidden field (its first). */
function withCsrf(markup: string, csrf: string | undefined): string {
  if (csrf === undefined) return markup;
  const field = html`<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">`.text;
  return markup.replace(/<form\b[^>]*\bmethod="post"[^>]*>/g, (tag) => tag + field);
}

export function page(options: PageOptions): string {
  const nav =
    options.org === undefined
      ? html``
      : html`<nav aria-label="Main"><a href="/">Queues</a> <a href="/charts">State charts</a> <a href="/flaky">Flaky tests</a>${options.admin === true ? html` <a href="/webhooks">Webhooks</a>` : ''}</nav>
<form method="post" action="/signout" class="signout"><span class="org">Organization <strong>${options.org}</strong></span> <button type="submit">Sign out</button></form>`;
  const now = options.now === undefined ? '' : html` data-now="${String(options.now)}"`;
  const live =
    options.live === undefined
      ? html`<div id="live"${now}>${options.body}</div>`
      : html`<div id="live" data-live="${options.live}" data-version="${options.version ?? ''}"${now}>${options.body}</div>`;
  const markup = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="htmx-config" content="${HTMX_CONFIG}">
<title>${options.title} — Greenline</title><link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/assets/dashboard.css">
<script src="/assets/htmx.min.js" defer></script><script src="/assets/dashboard.js" defer></script></head>
<body hx-boost="true"${options.csrf === undefined ? '' : html` hx-headers="${JSON.stringify({ [CSRF_HEADER]: options.csrf })}"`}><header><a class="brand" href="/">Greenline</a>${nav}</header>
<main><h1>${options.title}</h1>${options.aside}${live}</main></body></html>
`.text;
  return withCsrf(markup, options.csrf);
}
