import { isIP } from 'node:net';

/**
 * Which addresses a webhook delivery may connect to. Deliveries carry tenant-chosen URLs out of
 * the platform, so every address a host resolves to is classified before any connection, and the
 * connection goes to the address that was checked (shared/wallet/webhooks/http.ts).
 *
 * Always refused: link-local (169.254/16 with the cloud metadata address, fe80::/10), CGNAT
 * (100.64/10), multicast, unspecified, broadcast and the reserved and documentation ranges,
 * IPv4-mapped and IPv4-compatible IPv6, Teredo. Loopback (127/8, ::1) and private networks
 * (10/8, 172.16/12, 192.168/16, fc00::/7) are refused for every live endpoint, and for sandbox
 * endpoints unless the deployment opens them (WEBHOOK_ALLOW_PRIVATE_TARGETS: `loopback` or `true`;
 * the embedded platform opens loopback only). 6to4 and NAT64 addresses are judged by the IPv4
 * address they embed.
 */

export type AddressKind =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  | 'reserved'
  | 'ipv4_mapped'
  | 'invalid';

/** What a sandbox endpoint may reach besides public addresses: never link-local (metadata) or anything else. */
export type SandboxTargets = 'none' | 'loopback' | 'private';

const OPENED: Record<SandboxTargets, ReadonlySet<AddressKind>> = {
  none: new Set(),
  loopback: new Set(['loopback']),
  private: new Set(['loopback', 'private']),
};

/** WEBHOOK_ALLOW_PRIVATE_TARGETS: `false` (AWS), `loopback` (the embedded platform's default) or `true` (loopback and private networks). */
export const sandboxTargetsOf = (setting: 'false' | 'loopback' | 'true'): SandboxTargets => (setting === 'true' ? 'private' : setting === 'loopback' ? 'loopback' : 'none');

/** Whether a delivery may connect to an address of this kind: a live endpoint only ever to a public one. */
export function isAllowedAddress(kind: AddressKind, options: { livemode: boolean; sandboxTargets: SandboxTargets }): boolean {
  return kind === 'public' || (!options.livemode && OPENED[options.sandboxTargets].has(kind));
}

/** `[::1]` (a URL's hostname) or `fe80::1%eth0` to the bare address. */
export function bareAddress(host: string): string {
  const unbracketed = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const zone = unbracketed.indexOf('%');
  return zone >= 0 ? unbracketed.slice(0, zone) : unbracketed;
}

/** Whether a URL hostname is an IP literal (IPv6 in brackets). */
export const isIpLiteral = (host: string): boolean => isIP(bareAddress(host)) !== 0;

export function classifyAddress(address: string): AddressKind {
  const bare = bareAddress(address);
  switch (isIP(bare)) {
    case 4:
      return classifyV4(parseV4(bare));
    case 6:
      return classifyV6(parseV6(bare));
    default:
      return 'invalid';
  }
}

type Octets = [number, number, number, number];

function parseV4(address: string): Octets {
  return address.split('.').map(Number) as Octets;
}

const inV4 = (octets: Octets, base: Octets, prefix: number): boolean => {
  const value = ((octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0;
  const net = ((base[0] << 24) | (base[1] << 16) | (base[2] << 8) | base[3]) >>> 0;
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (value & mask) >>> 0 === (net & mask) >>> 0;
};

const V4_RANGES: [Octets, number, AddressKind][] = [
  [[0, 0, 0, 0], 8, 'unspecified'], // "this network"; 0.0.0.0 reaches the local host on Linux
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'cgnat'],
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link_local'],
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'reserved'],
  [[192, 0, 2, 0], 24, 'reserved'],
  [[192, 88, 99, 0], 24, 'reserved'],
  [[192, 168, 0, 0], 16, 'private'],
  [[198, 18, 0, 0], 15, 'reserved'],
  [[198, 51, 100, 0], 24, 'reserved'],
  [[203, 0, 113, 0], 24, 'reserved'],
  [[224, 0, 0, 0], 4, 'multicast'],
  [[240, 0, 0, 0], 4, 'reserved'], // includes 255.255.255.255
];

function classifyV4(octets: Octets): AddressKind {
  for (const [base, prefix, kind] of V4_RANGES) if (inV4(octets, base, prefix)) return kind;
  return 'public';
}

/** Eight 16-bit groups; handles `::` and a trailing dotted quad. */
function parseV6(address: string): number[] {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = parseV4(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':').map((g) => parseInt(g, 16)) : [];
  if (tail === undefined) return headGroups;
  const tailGroups = tail ? tail.split(':').map((g) => parseInt(g, 16)) : [];
  return [...headGroups, ...new Array<number>(8 - headGroups.length - tailGroups.length).fill(0), ...tailGroups];
}

const embeddedV4 = (high: number, low: number): Octets => [high >> 8, high & 0xff, low >> 8, low & 0xff];

function classifyV6(groups: number[]): AddressKind {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const firstSixZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstSixZero && g5 === 0) {
    if (g6 === 0 && g7 === 0) return 'unspecified';
    if (g6 === 0 && g7 === 1) return 'loopback';
    return 'reserved'; // IPv4-compatible (deprecated)
  }
  if (firstSixZero && g5 === 0xffff) return 'ipv4_mapped';
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyV4(embeddedV4(g6, g7)); // NAT64
  if (g0 === 0x64 && g1 === 0xff9b) return 'reserved'; // local-use NAT64 (64:ff9b:1::/48)
  if (g0 === 0x2002) return classifyV4(embeddedV4(g1, g2)); // 6to4
  if (g0 === 0x2001 && g1 === 0) return 'reserved'; // Teredo: tunnels to an address we cannot see
  if (g0 === 0x2001 && g1 === 0xdb8) return 'reserved'; // documentation
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return 'reserved'; // discard
  if ((g0 & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local';
  if ((g0 & 0xffc0) === 0xfec0) return 'reserved'; // site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  return 'public';
}
