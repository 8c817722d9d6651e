/**
 * The SSRF guard of webhook delivery (docs/contract/events-and-webhooks.md#webhook-url-checks, docs/contract/events-and-webhooks.md#webhook-delivery-address-checks): URL rules, and an
 * `https.Agent` that resolves a host once, checks every address it got, and connects
 * only to an address it checked (the checked list is handed to the socket, so there is
 * no second lookup a DNS rebinding could answer differently).
 */
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import https from 'node:https';
import { isIP, isIPv4, type LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { Duplex } from 'node:stream';
import { classifyAddress, type AddressClass } from './ip-ranges.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has. Injected in tests; default: the system resolver. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export interface AddressPolicy {
  /** Test deployments only: loopback and private targets are allowed (scheme and port rules still apply). */
  allowPrivateNetworks: boolean;
}

/** Why a URL is refused. Never carries the URL or an address: callers may show it to the owner. */
export type UrlRefusal = 'scheme' | 'invalid' | 'port' | 'credentials' | 'host';

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: UrlRefusal };

/**
 * The URL rules: `https://` only, no port other than 443 (`:443` and `:0443` are the
 * default port, so they pass), no credentials, and an IP-literal or `localhost` host only
 * inside public address space. The WHATWG parser turns every IPv4 notation (decimal,
 * octal, hex, short, full-width digits, ideographic dots) into a dotted quad first.
 */
export function checkWebhookUrl(raw: string, policy: AddressPolicy): UrlCheck {
  if (!raw.startsWith('https://')) return { ok: false, reason: 'scheme' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'scheme' };
  if (url.port !== '') return { ok: false, reason: 'port' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'credentials' };
  if (!policy.allowPrivateNetworks && !isPublicHost(url.hostname)) return { ok: false, reason: 'host' };
  return { ok: true, url };
}

/** A host name is public unless it is `localhost`; an IP literal must be a public address. */
function isPublicHost(hostname: string): boolean {
  const host = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (isIP(host) !== 0) return classifyAddress(host) === 'public';
  const name = host.toLowerCase().replace(/\.$/, '');
  return name !== 'localhost' && !name.endsWith('.localhost');
}

/** A connection refused by the guard. Carries the class of the address, never the address. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_TILECAST_ADDRESS_BLOCKED';
  constructor(readonly addressClass: AddressClass | 'localhost') {
    super(`webhook destination refused: ${addressClass} address`);
    this.name = 'BlockedAddressError';
  }
}

export function isBlockedAddressError(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if ((current as { code?: unknown }).code === 'ERR_TILECAST_ADDRESS_BLOCKED') return true;
  }
  return false;
}

/** Throws unless every address is public (or the policy allows private networks). */
export function assertAllowedAddresses(addresses: readonly ResolvedAddress[], policy: AddressPolicy): void {
  if (policy.allowPrivateNetworks) return;
  for (const { address } of addresses) {
    const kind = classifyAddress(address);
    if (kind !== 'public') throw new BlockedAddressError(kind);
  }
}

/**
 * A `lookup` for `net.connect`: resolves once, refuses the host if ANY address is not
 * public (a mixed answer is a rebinding attempt, not a choice), and hands the socket
 * exactly the checked addresses.
 */
export function guardedLookup(resolve: Resolver, policy: AddressPolicy, dialAddress?: string): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolveChecked(resolve, hostname, policy, options.family).then(
      (addresses) => {
        // Test-only redirection happens after the check, so the guard itself is exercised.
        const dialed: LookupAddress[] = addresses.map((entry) =>
          dialAddress === undefined ? entry : { address: dialAddress, family: isIPv4(dialAddress) ? 4 : 6 },
        );
        if (options.all === true) callback(null, dialed);
        else callback(null, dialed[0]!.address, dialed[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

async function resolveChecked(resolve: Resolver, hostname: string, policy: AddressPolicy, family: unknown): Promise<ResolvedAddress[]> {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (!policy.allowPrivateNetworks && (name === 'localhost' || name.endsWith('.localhost'))) throw new BlockedAddressError('localhost');
  const all = await resolve(hostname);
  assertAllowedAddresses(all, policy);
  const wanted = family === 4 || family === 6 ? all.filter((entry) => entry.family === family) : all;
  if (wanted.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
  return wanted;
}

/** How webhook connections are made, as a host configures them (part of `TilecastOptions.webhooks`). */
export interface WebhookConnectionOptions {
  /** Default: the system resolver (`dns.lookup`, every address). */
  resolve?: Resolver;
  /**
   * Extra certificate authorities to trust, added to Node's bundled roots (for a test
   * receiver's self-signed CA). Verification itself is never turned off.
   */
  ca?: string | Buffer | (string | Buffer)[];
  /**
   * TEST ONLY, never set in production: after the guard approved the resolved addresses,
   * dial `address` (default: the approved one) on `port` instead of 443. Port 443 is required
   * (docs/contract/events-and-webhooks.md#webhook-public-https-443), which a test cannot bind; this is the one way a test reaches a local receiver.
   */
  unsafeTestOnlyDial?: { address?: string; port: number };
}

export interface GuardedAgentOptions extends Partial<AddressPolicy>, WebhookConnectionOptions {
  /** Keep connections for the next delivery to the same host. Default true. */
  keepAlive?: boolean;
}

/**
 * The agent all webhook requests use. Certificates are always verified. Connections are
 * kept alive: a kept connection goes to an address the guard approved when it was made,
 * and reusing it saves a TLS handshake per delivery (at 100 presses a second, the
 * difference between milliseconds and a backlog).
 */
export function createGuardedAgent(options: GuardedAgentOptions = {}): https.Agent {
  const policy: AddressPolicy = { allowPrivateNetworks: options.allowPrivateNetworks ?? false };
  const extraCa = options.ca === undefined ? [] : Array.isArray(options.ca) ? options.ca : [options.ca];
  const dial = options.unsafeTestOnlyDial;
  return new GuardedAgent(policy, dial?.port, {
    keepAlive: options.keepAlive ?? true,
    keepAliveMsecs: 1_000,
    maxFreeSockets: 64,
    // Idle kept connections are closed after this long.
    timeout: 30_000,
    rejectUnauthorized: true,
    // One secure context for every connection: a `ca` list given per connection would be
    // parsed again (all the root certificates) for each TLS handshake.
    ...(extraCa.length > 0 ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...extraCa] }) } : {}),
    lookup: guardedLookup(options.resolve ?? systemResolver, policy, dial?.address),
  });
}

class GuardedAgent extends https.Agent {
  constructor(
    private readonly policy: AddressPolicy,
    private readonly testPort: number | undefined,
    agentOptions: https.AgentOptions,
  ) {
    super(agentOptions);
  }

  /**
   * `net.connect` skips `lookup` for an IP-literal host, so literals are checked here;
   * names go through the guarded lookup.
   */
  override createConnection(options: https.RequestOptions, callback?: (err: Error | null, stream: Duplex) => void): Duplex | null | undefined {
    const host = String(options.host ?? options.hostname ?? '').replace(/^\[(.*)\]$/, '$1');
    if (isIP(host) !== 0) {
      try {
        assertAllowedAddresses([{ address: host, family: isIPv4(host) ? 4 : 6 }], this.policy);
      } catch (error) {
        callback?.(error as Error, undefined as unknown as Duplex);
        return undefined;
      }
    }
    const target = this.testPort === undefined ? options : { ...options, port: this.testPort };
    return super.createConnection(target, callback);
  }
}
