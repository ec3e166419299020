/**
 * The git hosts the service can run with: the one list (GREENLINE_PROVIDER names one; the first is the default).
 * Adding a host is a folder that declares it (hostPlugin.ts) and a line here. Its implementation (the GitHost, a CI,
 * a webhook receiver) is loaded by its `open`, from engine/providers/<host>/: what `--help` reads loads none of it.
 */
import { gitHubHostPlugin } from './github/host.js';
import type { HostPlugin } from './hostPlugin.js';
import { localHostPlugin } from './local/host.js';
import { simHostPlugin } from './simulated/host.js';

export const HOSTS = [localHostPlugin, gitHubHostPlugin, simHostPlugin] as const;

export type HostName = (typeof HOSTS)[number]['name'];

type SettingsOf<P> = P extends HostPlugin<infer S> ? S : never;
type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;
/** The settings any host adds to the service's configuration (each present when its host is the one chosen). */
export type HostSettings = Partial<Intersection<SettingsOf<(typeof HOSTS)[number]>>>;

export function hostNamed(name: string): HostPlugin | undefined {
  return (HOSTS as readonly HostPlugin[]).find((host) => host.name === name);
}
