/**
 * Where a webhook may go: a public address only, unless the operator opted in for local
 * development (WEBHOOK_ALLOW_PRIVATE_TARGETS=1 for the deliverer, `webhooks set
 * --allow-private-url` for the CLI). Checked when the URL is set (a literal address, or a name
 * that resolves there) and again at every connection: the name is resolved once, every address it
 * gave is checked, and the socket connects to one of those very addresses, so a DNS answer that
 * changes between the check and the connection (rebinding) cannot send it elsewhere.
 */
import { type LookupAddress, type LookupOptions, lookup as systemLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { type AddressKind, classifyAddress } from '../domain/ip-address.js';

/** An attempt refused before it connected: its category is `refused_target` (domain/webhook-errors.ts). */
export class RefusedTargetError extends Error {
  override name = 'RefusedTargetError';
  readonly code = 'ERR_REFUSED_TARGET';
}

const KIND_PHRASES: Record<Exclude<AddressKind, 'public' | 'not_an_address'>, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  link_local: 'a link-local address',
  cgnat: 'a carrier-grade NAT address',
  unique_local: 'a unique-local address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  reserved: 'a reserved address',
};

/** What kind of address it is when it may not receive webhooks ("a private address"), or null when it may. */
function refusedKind(address: string, allowPrivate: boolean): string | null {
  const kind = classifyAddress(address);
  if (kind === 'public' || kind === 'not_an_address' || allowPrivate) return null;
  return KIND_PHRASES[kind];
}

/** Why a literal address may not receive webhooks, or null when it may. */
export function targetRefusal(address: string, allowPrivate: boolean): string | null {
  const kind = refusedKind(address, allowPrivate);
  return kind && `${address} is ${kind}`;
}

/** Why a name whose addresses these are may not receive webhooks, or null when it may. */
function nameRefusal(hostname: string, addresses: readonly LookupAddress[], allowPrivate: boolean): string | null {
  for (const { address } of addresses) {
    const kind = refusedKind(address, allowPrivate);
    if (kind) return `${hostname} resolves to ${address}, ${kind}`;
  }
  return null;
}

/** Resolves every address of a name (dns.lookup's signature with `all: true`). */
export type Resolve = (hostname: string, family: number) => Promise<LookupAddress[]>;

const resolveAll: Resolve = (hostname, family) =>
  new Promise((resolve, reject) =>
    systemLookup(hostname, { all: true, family }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/**
 * The `lookup` of a webhook request: resolves once, refuses if any address is not public (a name
 * that points at both is not a receiver on the internet), and hands exactly those addresses to
 * the socket.
 */
export function guardedLookup(allowPrivate: boolean, resolve: Resolve = resolveAll): LookupFunction {
  return ((hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
    resolve(hostname, typeof options.family === 'number' ? options.family : 0).then(
      (addresses) => {
        const refusal = nameRefusal(hostname, addresses, allowPrivate);
        if (refusal) return callback(new RefusedTargetError(refusal));
        if (addresses.length === 0)
          return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
        if (options.all) return callback(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: unknown) => callback(error),
    );
  }) as LookupFunction;
}

/** The host of a URL as an address when it is one (a URL writes IPv6 in brackets). */
export const hostAddress = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Set time: why this https (or loopback http) URL may not be a webhook endpoint, or null. A name
 * that does not resolve now is accepted: the deliverer checks again at every connection.
 */
export async function webhookUrlRefusal(
  url: URL,
  allowPrivate: boolean,
  resolve: Resolve = resolveAll,
): Promise<string | null> {
  const host = hostAddress(url);
  if (classifyAddress(host) !== 'not_an_address') return targetRefusal(host, allowPrivate);
  if (allowPrivate) return null;
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(host, 0);
  } catch {
    return null;
  }
  return nameRefusal(host, addresses, false);
}
