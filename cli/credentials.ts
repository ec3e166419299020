/**
 * Where `greenline login` keeps the token a device sign-in gave it: `credentials.json` in $GREENLINE_CONFIG_DIR,
 * else $XDG_CONFIG_HOME/greenline, else ~/.config/greenline; the folder 0700, the file 0600, one entry per service.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface Credential {
  token: string;
  org: string;
  scope: string;
  createdAt: string;
}

interface CredentialsFile {
  /** The service the last login was to: the client commands' default --url. */
  current?: string;
  services: Record<string, Credential>;
}

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.GREENLINE_CONFIG_DIR) return env.GREENLINE_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'greenline');
}

const fileOf = (env: NodeJS.ProcessEnv) => join(configDir(env), 'credentials.json');

export function readCredentials(env: NodeJS.ProcessEnv): CredentialsFile {
  try {
    const parsed = JSON.parse(readFileSync(fileOf(env), 'utf8')) as Partial<CredentialsFile>;
    return { ...(parsed.current === undefined ? {} : { current: parsed.current }), services: parsed.services ?? {} };
  } catch {
    return { services: {} };
  }
}

function write(env: NodeJS.ProcessEnv, content: CredentialsFile): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = fileOf(env);
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  renameSync(partial, file);
  return file;
}

/** Keeps `credential` for `url` and makes it the current service; returns the file written. */
export function saveCredential(env: NodeJS.ProcessEnv, url: string, credential: Credential): string {
  const content = readCredentials(env);
  return write(env, { current: url, services: { ...content.services, [url]: credential } });
}

/** Forgets the credential of `url`; false when there was none. */
export function forgetCredential(env: NodeJS.ProcessEnv, url: string): boolean {
  const content = readCredentials(env);
  if (content.services[url] === undefined) return false;
  const { [url]: _gone, ...services } = content.services;
  write(env, {
    ...(content.current === undefined || content.current === url ? {} : { current: content.current }),
    services,
  });
  return true;
}
