/**
 * Matching client addresses against the `trustProxy` list: single addresses, CIDR ranges
 * (`10.0.0.0/8`, `fd00::/8`) and the names `loopback`, `private` and `linklocal`. Parsed once,
 * when the handler is built; matching a request's address allocates at most its 16 bytes.
 *
 * @module
 */

/** An address range: the address's bytes (4 for IPv4, 16 for IPv6) and the prefix length. */
interface Range {
  readonly bytes: Uint8Array;
  readonly bits: number;
}

const NAMED: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
};

/** A set of addresses and ranges, built once from the option's strings. */
export class AddressList {
  readonly #ranges: Range[] = [];

  /** @throws TypeError for an entry that is neither an address, a range nor a known name. */
  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const named = NAMED[entry.toLowerCase()];
      for (const item of named ?? [entry]) this.#ranges.push(parseRange(item));
    }
  }

  has(address: string): boolean {
    const bytes = parseAddress(address);
    if (bytes === undefined) return false;
    for (const range of this.#ranges) if (inRange(bytes, range)) return true;
    return false;
  }
}

function parseRange(entry: string): Range {
  const slash = entry.indexOf('/');
  const bytes = parseAddress(slash === -1 ? entry : entry.slice(0, slash));
  const bits = slash === -1 ? undefined : Number(entry.slice(slash + 1));
  if (bytes === undefined || (bits !== undefined && !validBits(bits, bytes.length)))
    throw new TypeError(
      `trustProxy: "${entry}" is not an IP address, a CIDR range, or one of loopback, private, linklocal`,
    );
  return { bytes, bits: bits ?? bytes.length * 8 };
}

function validBits(bits: number, length: number): boolean {
  return Number.isInteger(bits) && bits >= 0 && bits <= length * 8;
}

function inRange(bytes: Uint8Array, range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] as number) & mask) !== ((range.bytes[i] as number) & mask)) return false;
  }
  return true;
}

/**
 * The bytes of an IPv4 or IPv6 address (brackets allowed; an IPv4-mapped IPv6 address is read as
 * the IPv4 one, as dual-stack sockets report IPv4 peers); `undefined` for anything else.
 */
export function parseAddress(text: string): Uint8Array | undefined {
  let address = text;
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  if (!address.includes(':')) return parseIpv4(address);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return parseIpv4(mapped[1] as string);
  return parseIpv6(address);
}

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i] as string;
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    bytes[i] = Number(part);
  }
  return bytes;
}

function parseIpv6(text: string): Uint8Array | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = groupsOf(halves[0] as string);
  const tail = halves.length === 2 ? groupsOf(halves[1] as string) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}

function groupsOf(text: string): number[] | undefined {
  if (text === '') return [];
  const groups: number[] = [];
  for (const group of text.split(':')) {
    if (!/^[\da-f]{1,4}$/i.test(group)) return undefined;
    groups.push(Number.parseInt(group, 16));
  }
  return groups;
}
