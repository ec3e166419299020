/**
 * How the GitHub stand-in (standIn.ts) knows its callers: the App by a JWT signed with its private key (checked with
 * the public key), installations by the tokens it handed out, each with the permissions it was granted.
 */
import { createPublicKey, verify } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { MatchedOperation } from './githubOpenApi.js';
import type { Answer } from './standInAnswers.js';

const TOKEN = /^(?:token|bearer) (.+)$/i;

export class StandInAuth {
  /** Installation tokens handed out, with the permissions each carries. */
  private readonly tokens = new Map<string, Record<string, string>>();
  private tokensMade = 0;

  constructor(private readonly publicKeyPem: string) {}

  /** A new installation token with these permissions. */
  issue(granted: Record<string, string>): string {
    const token = `ghs_standin${++this.tokensMade}`;
    this.tokens.set(token, { ...granted });
    return token;
  }

  /** Every installation token stops working. */
  revoke(): void {
    this.tokens.clear();
  }

  /** The permissions of the request's installation token (none for an unknown one). */
  permissionsOf(request: IncomingMessage): Record<string, string> {
    return this.tokens.get(TOKEN.exec(request.headers.authorization ?? '')?.[1] ?? '') ?? {};
  }

  /** The App authenticates with a JWT signed by its private key; installations with the tokens handed out. */
  authorized(request: IncomingMessage, match: MatchedOperation): Answer | undefined {
    const header = request.headers.authorization ?? '';
    const appLevel = match.template.startsWith('/app/') || match.template === '/repos/{owner}/{repo}/installation';
    if (appLevel) {
      const jwt = /^bearer (.+)$/i.exec(header)?.[1];
      const parts = jwt?.split('.') ?? [];
      const signed =
        parts.length === 3 &&
        verify(
          'RSA-SHA256',
          Buffer.from(`${parts[0]}.${parts[1]}`),
          createPublicKey(this.publicKeyPem),
          Buffer.from(parts[2]!, 'base64url'),
        );
      if (!signed)
        return {
          status: 401,
          body: { message: 'A JSON web token could not be decoded', documentation_url: 'https://docs.github.com/rest' },
        };
      return undefined;
    }
    const token = TOKEN.exec(header)?.[1];
    if (token === undefined || !this.tokens.has(token))
      return {
        status: 401,
        body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' },
        githubWide: true,
      };
    return undefined;
  }
}
