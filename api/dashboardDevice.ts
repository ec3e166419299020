/** The dashboard's device sign-in routes (/device): where a person approves a terminal's user code (RFC 8628). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../engine/engine.js';
import { scopeOf, TOKEN_SCOPES, type TokenScope } from '../engine/tokens.js';
import { deviceBody, deviceDoneBody, scopesUpTo } from '../web/devicePage.js';
import type { PageOptions } from '../web/layout.js';
import type { Session } from '../web/session.js';
import { formOf, type Handler } from './dashboardHttp.js';
import type { DeviceCodes } from '../engine/deviceCodes.js';

export interface DevicePagesOptions {
  engine: Engine;
  devices: DeviceCodes;
  signedIn: (handler: Handler) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
  show: (reply: FastifyReply, session: Session, options: Omit<PageOptions, 'org'>, status?: number) => FastifyReply;
}

export function registerDevicePages(scope: FastifyInstance, options: DevicePagesOptions): void {
  const { engine, devices, signedIn, show } = options;
  /** What this session may grant: at most its own token's scope and what the terminal asked for. */
  const grantable = (session: Session, requested: TokenScope) => {
    const token = engine.token(session.tokenId);
    const held = token === undefined ? 'read' : scopeOf(token);
    return scopesUpTo(TOKEN_SCOPES.indexOf(held) < TOKEN_SCOPES.indexOf(requested) ? held : requested);
  };
  const form = (reply: FastifyReply, session: Session, userCode: string, message?: string, status = 200) => {
    const pending = userCode === '' ? undefined : devices.pending(userCode);
    const limits = grantable(session, pending?.requested ?? 'admin');
    const shown =
      pending === undefined && userCode !== ''
        ? (message ?? 'That code is unknown, expired or answered already.')
        : message;
    return show(
      reply,
      session,
      {
        title: 'Sign in a terminal',
        body: deviceBody({
          userCode: pending?.userCode ?? userCode,
          grantable: limits,
          ...(shown === undefined ? {} : { message: shown }),
        }),
      },
      pending === undefined && userCode !== '' ? 404 : status,
    );
  };

  scope.get<{ Querystring: { user_code?: string } }>(
    '/device',
    signedIn((request, reply, session) =>
      form(reply, session, String((request.query as { user_code?: unknown }).user_code ?? '').slice(0, 32)),
    ),
  );

  scope.post(
    '/device',
    signedIn((request, reply, session) => {
      const posted = formOf(request);
      const userCode = (posted.get('user_code') ?? '').slice(0, 32);
      const pending = devices.pending(userCode);
      if (pending === undefined) return form(reply, session, userCode);
      if (posted.get('decision') !== 'approve') {
        devices.answer(userCode, { approve: false });
        return show(reply, session, { title: 'Sign in a terminal', body: deviceDoneBody(false) });
      }
      const scopeAsked = posted.get('scope') ?? '';
      const allowed = grantable(session, pending.requested);
      if (!(allowed as readonly string[]).includes(scopeAsked)) {
        return form(reply, session, userCode, `The scope must be one of ${allowed.join(', ')}.`, 400);
      }
      const scope = scopeAsked as TokenScope;
      // The token is made when the terminal polls (engine/deviceCodes.ts): its text is never stored.
      devices.answer(userCode, { approve: true, scope, org: session.org });
      return show(reply, session, { title: 'Sign in a terminal', body: deviceDoneBody(true, scope) });
    }),
  );
}
