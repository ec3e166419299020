/**
 * The git hosts the service can run with: the one list (GREENLINE_PROVIDER names one; the first is the default).
 * Adding a host is a folder that declares it (engine/providers/hostPlugin.ts) and a line here.
 */
import { gitHubHostPlugin } from './github/host.js';
import type { HostPlugin } from './hostPlugin.js';
import { localHostPlugin } from './local/host.js';
import { simHostPlugin } from './sim/host.js';

export const HOSTS = [localHostPlugin, gitHubHostPlugin, simHostPlugin] as const;

export type HostName = (typeof HOSTS)[number]['name'];

type SettingsOf<P> = P extends HostPlugin<infer S> ? S : never;
type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void ? I : never;
/** The settings any host adds to the service's configuration (each present when its host is the one chosen). */
export type HostSettings = Partial<Intersection<SettingsOf<(typeof HOSTS)[number]>>>;

export function hostNamed(name: string): HostPlugin | undefined {
  return (HOSTS as readonly HostPlugin[]).find((host) => host.name === name);
}
