/**
 * Which addresses a webhook may be sent to (SSRF: an endpoint URL is chosen by a customer and fetched by the service,
 * inside its network). A URL is http(s), without credentials, and names a public address: loopback, private,
 * link-local (cloud metadata at 169.254.169.254), unique-local, carrier-grade NAT, multicast, reserved and
 * unspecified addresses are refused, unless the service allows private addresses (`GREENLINE_WEBHOOKS_ALLOW_PRIVATE`,
 * for tests and networks that mean it). A host name is checked when it is resolved for each delivery (the lookup of
 * the connection itself: a name that later resolves to a private address is refused then, not only when registered).
 * The ranges are ipaddr.js's.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';

export interface UrlPolicy {
  /** Private and loopback addresses allowed (tests, a private network that means it). */
  allowPrivate: boolean;
}

export const MAX_URL_LENGTH = 2048;

/** Why an address is refused, or undefined when it is public. */
export function refusedAddress(address: string, policy: UrlPolicy): string | undefined {
  if (policy.allowPrivate) return undefined;
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  return range === 'unicast' ? undefined : `${address} is a ${range} address`;
}

/** Why the URL cannot be a webhook endpoint's, or undefined when it can (names are checked again when resolved). */
export function refusedUrl(text: string, policy: UrlPolicy): string | undefined {
  if (text.length > MAX_URL_LENGTH) return `the URL is longer than ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `the scheme ${url.protocol.slice(0, -1)} is not http or https`;
  if (url.username !== '' || url.password !== '') return 'a URL with credentials in it';
  if (url.hostname === '') return 'no host';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (ipaddr.isValid(host)) return refusedAddress(host, policy);
  if (!policy.allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')))
    return `${host} is a local name`;
  return undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for node:http(s) that refuses names resolving to an address the policy refuses. */
export function guardedLookup(policy: UrlPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      for (const { address } of addresses) {
        const refused = refusedAddress(address, policy);
        if (refused !== undefined) {
          const failure: NodeJS.ErrnoException = new Error(`${hostname} resolves to a refused address: ${refused}`);
          failure.code = 'EADDRNOTALLOWED';
          return callback(failure, '');
        }
      }
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0];
      if (first === undefined)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      return callback(null, first.address, first.family);
    });
  };
}
