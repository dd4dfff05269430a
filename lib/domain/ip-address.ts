/**
 * What kind of network an IP address is on (pure): whether a webhook may be sent there. Only a
 * public unicast address is; loopback, private, link-local (the cloud metadata service at
 * 169.254.169.254 among them), carrier-grade NAT, unique-local, multicast, unspecified and
 * reserved ranges are the operator's own network or nobody's, never a receiver on the internet.
 * IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4) are judged by that address.
 */

export type AddressKind =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'unique_local'
  | 'multicast'
  | 'unspecified'
  | 'reserved'
  | 'not_an_address';

function inPrefix(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  const whole = Math.floor(bits / 8);
  for (let index = 0; index < whole; index++) if ((bytes[index] ?? 0) !== prefix[index]) return false;
  // The bits of the next byte that the prefix still covers: none when it ends at a byte's end.
  const mask = (0xff << (8 - (bits % 8))) & 0xff;
  return ((bytes[whole] ?? 0) & mask) === ((prefix[whole] ?? 0) & mask);
}

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((byte) => byte <= 255) ? bytes : undefined;
}

/** The 16 bytes of an IPv6 address (`::` and a trailing dotted IPv4 allowed; a `%zone` ignored). */
function parseIpv6(text: string): number[] | undefined {
  const address = text.split('%')[0]!;
  if (/[^0-9a-f:.]/i.test(address) || address.split('::').length > 2) return undefined;
  const toGroups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const groups: number[] = [];
    const pieces = part.split(':');
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece);
        if (!v4) return undefined;
        groups.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) groups.push(Number.parseInt(piece, 16));
      else return undefined;
    }
    return groups;
  };
  const [head, tail] = address.split('::') as [string, string | undefined];
  const before = toGroups(head);
  const after = tail === undefined ? [] : toGroups(tail);
  if (!before || !after) return undefined;
  const missing = 8 - before.length - after.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
  // Without '::', missing is 0 (above).
  const groups = [...before, ...Array<number>(missing).fill(0), ...after];
  return groups.flatMap((group) => [group >> 8, group & 0xff]);
}

function classifyIpv4(bytes: readonly number[]): AddressKind {
  // [first octets..., prefix length, kind] of the special IPv4 ranges (RFC 6890); the first match wins.
  const ranges: readonly [readonly number[], number, AddressKind][] = [
    [[0], 8, 'unspecified'], // "this network", 0.0.0.0 included
    [[10], 8, 'private'],
    [[100, 64], 10, 'cgnat'],
    [[127], 8, 'loopback'],
    [[169, 254], 16, 'link_local'],
    [[172, 16], 12, 'private'],
    [[192, 0, 0], 24, 'reserved'], // IETF protocol assignments
    [[192, 0, 2], 24, 'reserved'], // documentation
    [[192, 88, 99], 24, 'reserved'], // 6to4 relay anycast
    [[192, 168], 16, 'private'],
    [[198, 18], 15, 'reserved'], // benchmarking
    [[198, 51, 100], 24, 'reserved'], // documentation
    [[203, 0, 113], 24, 'reserved'], // documentation
    [[224], 4, 'multicast'],
    [[240], 4, 'reserved'], // 255.255.255.255 included
  ];
  return ranges.find(([prefix, bits]) => inPrefix(bytes, prefix, bits))?.[2] ?? 'public';
}

function classifyIpv6(bytes: readonly number[]): AddressKind {
  const zero = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  if (zero(0, 16)) return 'unspecified';
  if (zero(0, 15) && bytes[15] === 1) return 'loopback';
  // ::ffff:a.b.c.d (mapped), 64:ff9b::a.b.c.d (NAT64): the IPv4 address is where it goes.
  if (zero(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return classifyIpv4(bytes.slice(12));
  if (inPrefix(bytes, [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96)) return classifyIpv4(bytes.slice(12));
  // 2002:a.b.c.d::/48 (6to4) reaches that IPv4 address.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return classifyIpv4(bytes.slice(2, 6));
  if (inPrefix(bytes, [0xfc], 7)) return 'unique_local'; // fd00:ec2::254, the EC2 metadata service, too
  if (inPrefix(bytes, [0xfe, 0x80], 10)) return 'link_local';
  if (inPrefix(bytes, [0xfe, 0xc0], 10)) return 'private'; // site-local (deprecated)
  if (bytes[0] === 0xff) return 'multicast';
  if (inPrefix(bytes, [0x20, 0x01, 0x0d, 0xb8], 32)) return 'reserved'; // documentation
  // IETF protocol assignments, Teredo (2001::/32, which reaches any IPv4 address) among them.
  if (inPrefix(bytes, [0x20, 0x01, 0x00], 23)) return 'reserved';
  // Global unicast is 2000::/3; the rest (IPv4-compatible, discard, unassigned) is nobody's receiver.
  return inPrefix(bytes, [0x20], 3) ? 'public' : 'reserved';
}

/** An IPv4 or IPv6 address (brackets as in a URL's host allowed). */
export function classifyAddress(address: string): AddressKind {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const v4 = parseIpv4(text);
  if (v4) return classifyIpv4(v4);
  // Stryker disable next-line StringLiteral: parseIpv6 finds no address in a text without ':' either
  const v6 = text.includes(':') ? parseIpv6(text) : undefined;
  return v6 ? classifyIpv6(v6) : 'not_an_address';
}

export const isIpAddress = (text: string): boolean => classifyAddress(text) !== 'not_an_address';
