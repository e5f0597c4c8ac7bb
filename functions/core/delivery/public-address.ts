/**
 * Whether an IP address is one a deployed delivery may reach: a public unicast address. A delivery
 * function runs next to the Lambda Runtime API (127.0.0.1:9001), the instance metadata services
 * (169.254.169.254, fd00:ec2::254) and whatever the account's network reaches privately; a target
 * there would hand it the event and a signed request. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped and -compatible, NAT64, 6to4, Teredo) are judged by the IPv4 address they carry.
 * Pure: the caller resolves names and asks about each address.
 */

/** The four bytes of a dotted IPv4 address, or `undefined`. */
export function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** The sixteen bytes of an IPv6 address (`::` and a trailing dotted IPv4 allowed), or `undefined`. */
export function parseIpv6(text: string): number[] | undefined {
  const host = text
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '')
    .toLowerCase();
  if (!host.includes(':')) return undefined;
  // A trailing dotted IPv4 address becomes the last two groups.
  let head = host;
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  if (dotted) {
    const v4 = parseIpv4(dotted[2] as string);
    if (!v4) return undefined;
    const [a, b, c, d] = v4 as [number, number, number, number];
    head = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(halves[0] as string);
  const right = halves.length === 2 ? groups(halves[1] as string) : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...left, ...Array.from({ length: halves.length === 2 ? missing : 0 }, () => '0'), ...right];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return all.flatMap((g) => [Number.parseInt(g, 16) >> 8, Number.parseInt(g, 16) & 255]);
}

type Range = readonly [prefix: readonly number[], bits: number, what: string];

const IPV4_REFUSED: readonly Range[] = [
  [[0], 8, 'the unspecified network'],
  [[10], 8, 'a private address'],
  [[100, 64], 10, 'a shared (carrier-grade NAT) address'],
  [[127], 8, 'a loopback address'],
  [[169, 254], 16, 'a link-local address (instance metadata)'],
  [[172, 16], 12, 'a private address'],
  [[192, 0, 0], 24, 'an IETF protocol address'],
  [[192, 168], 16, 'a private address'],
  [[198, 18], 15, 'a benchmarking address'],
  [[224], 4, 'a multicast address'],
  [[240], 4, 'a reserved address'],
];

const IPV6_REFUSED: readonly Range[] = [
  [[0xfe, 0x80], 10, 'a link-local address'],
  [[0xfe, 0xc0], 10, 'a site-local address'],
  [[0xfc], 7, 'a unique local address (ULA)'],
  [[0xff], 8, 'a multicast address'],
];

function inRange(bytes: readonly number[], [prefix, bits]: Range): boolean {
  for (let bit = 0; bit < bits; bit++) {
    const i = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((bytes[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

const zeros = (bytes: readonly number[], from: number, to: number) =>
  bytes.slice(from, to).every((b) => b === 0);

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4, Teredo), if any. */
function embeddedIpv4(b: readonly number[]): number[] | undefined {
  if (zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12); // ::ffff:a.b.c.d
  if (zeros(b, 0, 12) && !zeros(b, 12, 16)) return b.slice(12); // ::a.b.c.d (deprecated)
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) return b.slice(12); // 64:ff9b::/96, 64:ff9b:1::/48
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6); // 6to4 2002::/16
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0 && b[3] === 0) return b.slice(12).map((x) => x ^ 0xff); // Teredo
  return undefined;
}

function ipv4Problem(v4: readonly number[]): string | undefined {
  if (v4.every((x) => x === 255)) return 'the broadcast address';
  return IPV4_REFUSED.find((r) => inRange(v4, r))?.[2];
}

/**
 * Why `address` (an IP literal, IPv6 with or without brackets) may not be reached by a deployed
 * delivery, or `undefined` when it is a public unicast address. Anything not an IP address is
 * refused too: the caller resolves names first.
 */
export function nonPublicAddressReason(address: string): string | undefined {
  const v4 = parseIpv4(address);
  if (v4) return ipv4Problem(v4);
  const v6 = parseIpv6(address);
  if (!v6) return 'not an IP address';
  if (zeros(v6, 0, 16)) return 'the unspecified address';
  if (zeros(v6, 0, 15) && v6[15] === 1) return 'a loopback address';
  const carried = embeddedIpv4(v6);
  if (carried) {
    const problem = ipv4Problem(carried);
    return problem ? `${problem} (IPv4 inside IPv6)` : undefined;
  }
  if (address.replace(/^\[|\]$/g, '').toLowerCase() === 'fd00:ec2::254')
    return 'an instance metadata address';
  return IPV6_REFUSED.find((r) => inRange(v6, r))?.[2];
}

const METADATA: readonly Range[] = [
  [[169, 254], 16, 'a link-local address (instance metadata)'],
  [[100, 100, 100, 200], 32, 'an instance metadata address'],
];

/**
 * Why `address` may not be reached even where private targets are allowed: link-local and the
 * instance metadata services (in any IPv6 form that carries them), the unspecified address.
 */
export function metadataAddressReason(address: string): string | undefined {
  const v6 = parseIpv6(address);
  const v4 = parseIpv4(address) ?? (v6 ? embeddedIpv4(v6) : undefined);
  if (v4)
    return v4.every((x) => x === 0) ? 'the unspecified address' : METADATA.find((r) => inRange(v4, r))?.[2];
  if (!v6) return 'not an IP address';
  if (zeros(v6, 0, 16)) return 'the unspecified address';
  if (address.replace(/^\[|\]$/g, '').toLowerCase() === 'fd00:ec2::254')
    return 'an instance metadata address';
  return inRange(v6, [[0xfe, 0x80], 10, '']) ? 'a link-local address' : undefined;
}
