/**
 * `greenline login`: the device authorization grant (RFC 8628) against a service. It asks for a code, shows where a
 * person enters it (the dashboard's /device, signed in), polls at the service's interval, and keeps the token it
 * is given (credentials.ts). `greenline logout` forgets it.
 */
import { call, serviceUrl } from './apiClient.js';
import type { CommandContext } from './commands.js';
import { forgetCredential, saveCredential } from './credentials.js';
import { UsageError } from './usage.js';

const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const SCOPES = ['read', 'write', 'admin'];

interface Started {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function loginCommand({ values, env }: CommandContext): Promise<number> {
  const scope = values.scope ?? 'write';
  if (!SCOPES.includes(scope)) throw new UsageError(`--scope must be ${SCOPES.join(', ')}, not "${scope}"`);
  const url = serviceUrl(values.url, env);
  const to = { url, token: undefined };
  let initiated: Awaited<ReturnType<typeof call>>;
  try {
    initiated = await call(to, 'POST', '/v1/device-auth/initiate', { scope, client_id: 'greenline-cli' });
  } catch (error) {
    console.error(`greenline: ${(error as Error).message} (pass --url or set GREENLINE_URL)`);
    return 1;
  }
  if (initiated.status !== 200) {
    console.error(`greenline: ${url} did not start a sign-in (${initiated.status}): ${JSON.stringify(initiated.body)}`);
    return 1;
  }
  const started = initiated.body as Started;
  console.error(
    `To sign in, open ${started.verification_uri_complete ?? started.verification_uri}\nand confirm the code ${started.user_code} (it expires in ${Math.round(started.expires_in / 60)} minutes).`,
  );
  let interval = started.interval;
  const deadline = Date.now() + started.expires_in * 1000;
  while (Date.now() < deadline) {
    await sleep(interval * 1000);
    const polled = await call(to, 'POST', '/v1/device-auth/tokens', {
      device_code: started.device_code,
      grant_type: GRANT,
    });
    const body = polled.body as {
      access_token?: string;
      scope?: string;
      org?: string;
      error?: string;
      error_description?: string;
    };
    if (polled.status === 200 && body.access_token !== undefined) {
      const file = saveCredential(env, url, {
        token: body.access_token,
        org: body.org ?? '',
        scope: body.scope ?? scope,
        createdAt: new Date().toISOString(),
      });
      console.log(`signed in to ${url}: organization ${body.org}, scope ${body.scope}`);
      console.error(`the token is kept in ${file}`);
      return 0;
    }
    if (body.error === 'authorization_pending') continue;
    if (body.error === 'slow_down') {
      interval += 5;
      continue;
    }
    console.error(`greenline: sign-in ended: ${body.error_description ?? body.error ?? `${polled.status}`}`);
    return 1;
  }
  console.error('greenline: sign-in ended: the code expired before it was approved');
  return 1;
}

export async function logoutCommand({ values, env }: CommandContext): Promise<number> {
  const url = serviceUrl(values.url, env);
  if (!forgetCredential(env, url)) {
    console.error(`greenline: not signed in to ${url}`);
    return 1;
  }
  console.log(`signed out of ${url} (the token stays valid until revoked: greenline token revoke, on the service)`);
  return 0;
}
