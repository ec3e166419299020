/** The sign-in page: an API token, posted once and exchanged for a session cookie. */
import { html, type Html } from './html.js';

export function signinBody(message?: string, next = '/'): Html {
  return html`${message === undefined ? '' : html`<p class="error" role="alert">${message}</p>`}
<form method="post" action="/signin" class="signin" hx-boost="false"><input type="hidden" name="next" value="${next}">
<label for="token">API token</label><input id="token" name="token" type="password" autocomplete="off" required>
<p class="muted">The token is sent once; the dashboard then keeps an HttpOnly session cookie, never the token.</p>
<button type="submit" class="primary">Sign in</button></form>`;
}

/** Where to go after signing in: only a path of this site. */
export function safeNext(next: string | undefined): string {
  return next !== undefined && /^\/(?!\/)[^\s\\]*$/.test(next) && !next.startsWith('/signin') ? next : '/';
}
