/**
 * IPv4/IPv6 addresses and CIDRs as plain values with bigint arithmetic, so ranges of any size
 * (an IPv6 /64 holds 2^64 addresses) can be measured and offset without enumerating them.
 *
 * Decision: the text-level parsing and RFC 5952 formatting come from `ip-address` (10.x, TypeScript,
 * native BigInt, strict four-part decimal IPv4 that rejects octal/hex/short forms). `ipaddr.js` (the
 * 1.9.1 copy express pulls in) was checked and not used: its default parser reads "010.0.0.1" as octal
 * (8.0.0.1) and accepts one-number IPv4 forms, its typings lack `toRFC5952String`, and it has no bigint
 * support. Only the address grammar is delegated; prefixes, networks, offsets and containment are
 * plain bigint arithmetic here. `ip-address` must be a direct dependency of the package (it is only
 * transitively installed today, through @kubernetes/client-node -> socks).
 */
import { Address4, Address6 } from 'ip-address';

export type IpFamily = 'IPv4' | 'IPv6';

/** Thrown for any text that is not an address or CIDR; the message names the text and the problem. */
export class CidrError extends Error {
  override name = 'CidrError';
}

export interface IpAddress {
  readonly family: IpFamily;
  readonly value: bigint;
}

export interface Cidr {
  readonly family: IpFamily;
  readonly prefixLength: number;
  /** The first address of the range (host bits cleared). */
  readonly network: bigint;
  /** The address as written before the slash; differs from `network` when host bits are set. */
  readonly address: bigint;
}

const IPV4_MAPPED_PREFIX = 0xffffn;

export function addressBits(family: IpFamily): 32 | 128 {
  return family === 'IPv4' ? 32 : 128;
}

export function hostBitsOf(cidr: Cidr): number {
  return addressBits(cidr.family) - cidr.prefixLength;
}

export function parseIp(text: string): IpAddress {
  const ip = tryParseIp(text);
  if (ip === null) throw new CidrError(`${quote(text)} is not an IPv4 or IPv6 address`);
  return ip;
}

/** Like {@link parseIp}, but returns null instead of throwing (for scanning untrusted snapshot data). */
export function tryParseIp(text: string): IpAddress | null {
  if (typeof text !== 'string') return null;
  // The library accepts a "/prefix" suffix and "%zone" identifiers on addresses; a Service IP has neither.
  if (!text.includes(':')) {
    const value = dottedQuadValue(text);
    return value === null ? null : { family: 'IPv4', value: BigInt(value) };
  }
  if (text.includes('/') || text.includes('%')) return null;
  try {
    return text.includes(':')
      ? { family: 'IPv6', value: new Address6(text).bigInt() }
      : { family: 'IPv4', value: new Address4(text).bigInt() };
  } catch {
    return null;
  }
}

/** Canonical text: dotted decimal IPv4, RFC 5952 compressed lower-case IPv6 (the IPAddress object name). */
export function formatIp(ip: IpAddress): string {
  if (ip.family === 'IPv4') return dottedQuad(Number(ip.value));
  // Decision: IPv4-mapped IPv6 addresses keep the dotted tail, as RFC 5952 section 5 recommends and as
  // Go's netip prints them ("::ffff:10.0.0.1"), rather than the all-hex form.
  if (ip.value >> 32n === IPV4_MAPPED_PREFIX) {
    return `::ffff:${Address4.fromBigInt(ip.value & 0xffffffffn).correctForm()}`;
  }
  return Address6.fromBigInt(ip.value).correctForm();
}

/**
 * Strict dotted-decimal IPv4 (four parts, no leading zeros, each at most 255), by hand: a snapshot holds
 * one ClusterIP per Service and one address per endpoint, and the library's general parser costs
 * several times more per address than this, which matters at 150,000 endpoints.
 */
export function isCanonicalIPv4(text: string): boolean {
  return dottedQuadValue(text) !== null;
}

function dottedQuadValue(text: string): number | null {
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 46; // a final '.' closes the last part
    if (code === 46) {
      if (digits === 0 || part > 255 || parts === 4) return null;
      value = value * 256 + part;
      parts++;
      part = 0;
      digits = 0;
    } else if (code >= 48 && code <= 57) {
      if (digits > 0 && part === 0) return null; // leading zero
      part = part * 10 + (code - 48);
      if (++digits > 3) return null;
    } else {
      return null;
    }
  }
  return parts === 4 ? value : null;
}

function dottedQuad(value: number): string {
  return `${(value >>> 24) & 255}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

/** Canonical text of a parsed address string; throws {@link CidrError} for anything that is not one. */
export function canonicalIp(text: string): string {
  return formatIp(parseIp(text));
}

export function parseCidr(text: string): Cidr {
  if (typeof text !== 'string') throw new CidrError(`${quote(text)} is not a CIDR`);
  const slash = text.indexOf('/');
  if (slash < 0) throw new CidrError(`${quote(text)} is not a CIDR: it has no "/<prefix length>"`);
  const addressText = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  const ip = tryParseIp(addressText);
  if (ip === null) {
    throw new CidrError(`${quote(text)} is not a valid CIDR: ${quote(addressText)} is not an IPv4 or IPv6 address`);
  }
  const prefixLength = parsePrefixLength(text, prefixText, ip.family);
  const hostBits = addressBits(ip.family) - prefixLength;
  const network = (ip.value >> BigInt(hostBits)) << BigInt(hostBits);
  return { family: ip.family, prefixLength, network, address: ip.value };
}

function parsePrefixLength(cidrText: string, prefixText: string, family: IpFamily): number {
  if (!/^(0|[1-9][0-9]*)$/.test(prefixText)) {
    throw new CidrError(
      `${quote(cidrText)} is not a valid CIDR: prefix length ${quote(prefixText)} is not a decimal number`,
    );
  }
  const prefixLength = Number(prefixText);
  const max = addressBits(family);
  if (prefixLength > max) {
    throw new CidrError(
      `${quote(cidrText)} is not a valid CIDR: prefix length ${prefixLength} is out of range for ${family} (0-${max})`,
    );
  }
  return prefixLength;
}

/** Canonical `network/prefix` text (host bits cleared). */
export function formatCidr(cidr: Cidr): string {
  return `${formatIp({ family: cidr.family, value: cidr.network })}/${cidr.prefixLength}`;
}

/** The CIDR exactly as written, canonically formatted but with its host bits kept. */
export function formatCidrAsWritten(cidr: Cidr): string {
  return `${formatIp({ family: cidr.family, value: cidr.address })}/${cidr.prefixLength}`;
}

export function hasHostBitsSet(cidr: Cidr): boolean {
  return cidr.address !== cidr.network;
}

/** Number of addresses in the CIDR, 2^hostBits, network and broadcast included. */
export function addressCount(cidr: Cidr): bigint {
  return 1n << BigInt(hostBitsOf(cidr));
}

/** The all-ones address of the CIDR (the IPv4 broadcast address). */
export function lastAddressOf(cidr: Cidr): bigint {
  return cidr.network + addressCount(cidr) - 1n;
}

/** `ip + offset`, refusing to leave the family's address space. */
export function addOffset(ip: IpAddress, offset: bigint): IpAddress {
  const value = ip.value + offset;
  if (value < 0n || value >= 1n << BigInt(addressBits(ip.family))) {
    throw new CidrError(`${formatIp(ip)} + ${offset} is outside the ${ip.family} address space`);
  }
  return { family: ip.family, value };
}

export function cidrContains(cidr: Cidr, ip: IpAddress): boolean {
  if (cidr.family !== ip.family) return false;
  const hostBits = BigInt(hostBitsOf(cidr));
  return ip.value >> hostBits === cidr.network >> hostBits;
}

function quote(text: unknown): string {
  return JSON.stringify(text) ?? String(text);
}
