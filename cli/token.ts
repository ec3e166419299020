/** `greenline token create|list|revoke`: manage API tokens in the store of GREENLINE_DATA (or --data), or GREENLINE_STORE's. */
import { isoAt, wallClock } from '../engine/runtime/clock.js';
import { openLmdbStore } from '../engine/store/index.js';
import { openPostgresStore } from '../engine/store/postgresStore.js';
import { createToken, listTokens, revokeToken, scopeOf, TOKEN_SCOPES, type TokenScope } from '../engine/tokens.js';
import { UsageError } from './config.js';

export async function tokenCommand(
  action: string | undefined,
  options: { org?: string; dataDir: string; id?: string; scope?: string; storeUrl?: string },
) {
  if (options.scope !== undefined && !(TOKEN_SCOPES as readonly string[]).includes(options.scope)) {
    throw new UsageError(`--scope must be ${TOKEN_SCOPES.join(', ')}, not "${options.scope}"`);
  }
  // With GREENLINE_STORE, the PostgreSQL store every process of the service shares.
  const store =
    options.storeUrl === undefined
      ? openLmdbStore({ dir: options.dataDir })
      : openPostgresStore({ url: options.storeUrl });
  try {
    switch (action) {
      case 'create': {
        if (options.org === undefined) throw new UsageError('token create needs --org NAME');
        const { token, record } = createToken(
          store,
          options.org,
          isoAt(wallClock),
          (options.scope ?? 'admin') as TokenScope,
        );
        console.log(token);
        console.error(
          `created token ${record.id} of scope ${scopeOf(record)} for organization "${record.org}" (shown only this once)`,
        );
        return 0;
      }
      case 'list': {
        for (const record of listTokens(store)) {
          console.log(`${record.id}\t${record.org}\t${record.source}\t${record.createdAt}\t${scopeOf(record)}`);
        }
        return 0;
      }
      case 'revoke': {
        if (options.id === undefined) throw new UsageError('token revoke needs a token id (see greenline token list)');
        if (!revokeToken(store, options.id)) {
          console.error(`greenline: no token with id ${options.id}`);
          return 1;
        }
        console.error(`revoked token ${options.id}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown token action "${action ?? ''}": use create, list or revoke`);
    }
  } finally {
    await store.close();
  }
}
