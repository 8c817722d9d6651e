/**
 * Which IP addresses count as public, for the webhook address guard
 * (docs/contract/events-and-webhooks.md#webhook-public-https-443, docs/contract/events-and-webhooks.md#webhook-delivery-address-checks).
 *
 * IPv4: everything except the IANA special-purpose blocks (and one cloud metadata
 * address that sits in public space). IPv6: only global unicast (`2000::/3`) can be
 * public, minus the special blocks inside it. Translation and embedding prefixes
 * (`::ffff:0:0/96`, `64:ff9b::/96`, `2002::/16`, Teredo) are refused as a whole: they can
 * smuggle any IPv4 address, and a webhook target has no reason to use them.
 */
import { isIPv4, isIPv6 } from 'node:net';

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'this-network'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'reserved'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'cloud-metadata'
  | 'ipv4-mapped'
  | 'ipv4-compatible'
  | 'nat64'
  | '6to4'
  | 'teredo'
  | 'unique-local'
  | 'site-local'
  | 'not-global-unicast'
  | 'invalid';

interface Range {
  /** Network address as bytes (4 or 16). */
  network: number[];
  prefix: number;
  kind: Exclude<AddressClass, 'public' | 'invalid'>;
}

const v4 = (cidr: string, kind: Range['kind']): Range => {
  const [address, prefix] = cidr.split('/') as [string, string];
  return { network: parseIPv4(address)!, prefix: Number(prefix), kind };
};
const v6 = (cidr: string, kind: Range['kind']): Range => {
  const [address, prefix] = cidr.split('/') as [string, string];
  return { network: parseIPv6(address)!, prefix: Number(prefix), kind };
};

// More specific ranges first where they overlap, so the most telling name wins.
const IPV4_RANGES: readonly Range[] = [
  v4('0.0.0.0/32', 'unspecified'),
  v4('0.0.0.0/8', 'this-network'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'cgnat'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'), // IETF protocol assignments (192.0.0.8, DS-Lite, NAT64 discovery)
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', 'reserved'), // deprecated 6to4 relay anycast
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('255.255.255.255/32', 'broadcast'),
  v4('240.0.0.0/4', 'reserved'),
  // Azure's wire server (instance metadata and agent traffic) lives at a public address.
  v4('168.63.129.16/32', 'cloud-metadata'),
];

const IPV6_RANGES: readonly Range[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('::ffff:0:0/96', 'ipv4-mapped'),
  v6('::/96', 'ipv4-compatible'),
  v6('64:ff9b::/96', 'nat64'),
  v6('64:ff9b:1::/48', 'nat64'),
  v6('fc00::/7', 'unique-local'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'site-local'),
  v6('ff00::/8', 'multicast'),
  v6('2001::/32', 'teredo'),
  v6('2001:2::/48', 'benchmarking'),
  v6('2001:db8::/32', 'documentation'),
  v6('3fff::/20', 'documentation'),
  v6('2001::/23', 'reserved'), // IETF protocol assignments (ORCHID and others)
  v6('2002::/16', '6to4'),
];
const GLOBAL_UNICAST = v6('2000::/3', 'not-global-unicast');

/** Classifies an IP address written in standard notation (IPv6 without brackets; a zone id is ignored). */
export function classifyAddress(address: string): AddressClass {
  if (isIPv4(address)) return classify(parseIPv4(address)!, IPV4_RANGES);
  const bare = address.split('%')[0]!;
  if (!isIPv6(address)) return 'invalid';
  const bytes = parseIPv6(bare);
  if (bytes === null) return 'invalid';
  const special = classify(bytes, IPV6_RANGES);
  if (special !== 'public') return special;
  return inRange(bytes, GLOBAL_UNICAST) ? 'public' : 'not-global-unicast';
}

export function isPublicAddress(address: string): boolean {
  return classifyAddress(address) === 'public';
}

function classify(bytes: number[], ranges: readonly Range[]): AddressClass {
  for (const range of ranges) if (inRange(bytes, range)) return range.kind;
  return 'public';
}

function inRange(bytes: number[], range: Range): boolean {
  if (bytes.length !== range.network.length) return false;
  let bits = range.prefix;
  for (let i = 0; i < bytes.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i]! & mask) !== (range.network[i]! & mask)) return false;
  }
  return true;
}

/** Dotted-quad IPv4 (the only form `net.isIPv4` accepts) to 4 bytes. */
function parseIPv4(address: string): number[] | null {
  const parts = address.split('.');
  if (parts.length !== 4) return null;
  const bytes = parts.map(Number);
  return bytes.every((byte) => Number.isInteger(byte) && byte >= 0 && byte <= 255) ? bytes : null;
}

/** IPv6 text (with `::` and an optional dotted IPv4 tail) to 16 bytes. */
function parseIPv6(address: string): number[] | null {
  let text = address;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const quad = parseIPv4(text.slice(lastColon + 1));
    if (quad === null) return null;
    tail.push((quad[0]! << 8) | quad[1]!, (quad[2]! << 8) | quad[3]!);
    text = text.slice(0, lastColon + 1) + '0'; // placeholder group, dropped below
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (tail.length > 0) (halves.length === 2 ? rest : head).pop();
  const gap = 8 - head.length - rest.length - tail.length;
  if (halves.length === 2 && gap < 0) return null;
  const all = halves.length === 2 ? [...head, ...new Array<number>(gap).fill(0), ...rest, ...tail] : [...head, ...tail];
  if (all.length !== 8 || all.some((group) => !Number.isInteger(group) || group < 0 || group > 0xffff)) return null;
  return all.flatMap((group) => [group >> 8, group & 0xff]);
}
