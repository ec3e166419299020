/**
 * The device sign-in page (RFC 8628 3.3): a person signed in to the dashboard enters the code their terminal shows
 * (or arrives with it in the link), picks the scope of the token the terminal gets, and approves or denies.
 */
import { TOKEN_SCOPES, type TokenScope } from '../engine/tokens.js';
import { html, type Html } from './html.js';

export interface DeviceFormState {
  userCode: string;
  /** The scopes this person may grant (at most what the terminal asked for and what their own token holds). */
  grantable: readonly TokenScope[];
  message?: string;
}

export function deviceBody(state: DeviceFormState): Html {
  const widest = state.grantable.at(-1);
  return html`${state.message === undefined ? '' : html`<p class="error" role="alert">${state.message}</p>`}
<form method="post" action="/device" class="signin" hx-boost="false">
<p>A terminal asks to sign in to your organization. Approve only a code you started yourself: the terminal gets an
API token of the scope you choose.</p>
<label for="user_code">Code shown in the terminal</label>
<input id="user_code" name="user_code" value="${state.userCode}" autocomplete="off" autocapitalize="characters" spellcheck="false" required>
<label for="scope">Scope of its token</label>
<select id="scope" name="scope">${state.grantable.map((scope) => html`<option value="${scope}"${scope === widest ? html` selected` : ''}>${scope}</option>`)}</select>
<button type="submit" name="decision" value="approve" class="primary">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`;
}

export function deviceDoneBody(approved: boolean, scope?: TokenScope): Html {
  return approved
    ? html`<p role="status">Approved: the terminal receives a token of scope ${scope ?? ''} at its next poll. You can close this page.</p>`
    : html`<p role="status">Denied: the terminal is told so and gets no token.</p>`;
}

/** The scopes up to `limit`, narrowest first. */
export function scopesUpTo(limit: TokenScope): TokenScope[] {
  return TOKEN_SCOPES.slice(0, TOKEN_SCOPES.indexOf(limit) + 1);
}
