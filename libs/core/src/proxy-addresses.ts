/**
 * Addresses as kube-proxy holds them: it re-serialises every endpoint IP (Go's
 * `ParseIPSloppy(...).String()`), so `010.0.0.1` and `10.0.0.1` are one endpoint, and IPv6 is written
 * as RFC 5952 text.
 */
import { isCanonicalIPv4 } from './ip-addresses.js';
import type { AddressType } from './k8s-objects.js';

// Decision: not built on ip-addresses.ts, whose strict grammar rejects what kube-proxy's sloppy
// parser accepts (IPv4 parts with leading zeros) and whose bigint values are more than the hot
// path (every endpoint of every Service in `analyze`) needs.

export interface ParsedIP {
  family: AddressType;
  /** Canonical text: dotted decimal, or RFC 5952 IPv6 (lowercase, longest zero run as `::`). */
  text: string;
}

/**
 * Decision: an address that does not parse (impossible past API validation) keeps its text as
 * written, where upstream would print `<nil>`; that names the culprit instead of merging all of them.
 */
export function canonicalAddress(address: string): string {
  if (isCanonicalIPv4(address)) return address;
  return parseIP(address)?.text ?? address;
}

/** Parses like Go's sloppy IP parser: IPv4 parts may carry leading zeros (read as decimal). */
export function parseIP(text: string): ParsedIP | null {
  if (!text.includes(':')) {
    const octets = parseIPv4(text);
    if (!octets) return null;
    const hasLeadingZeros = /(^|\.)0[0-9]/.test(text);
    return { family: 'IPv4', text: hasLeadingZeros ? octets.join('.') : text };
  }
  const groups = parseIPv6(text);
  if (!groups) return null;
  // An IPv4-mapped IPv6 address is an IPv4 address to Go, and prints as one.
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return { family: 'IPv4', text: [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.') };
  }
  return { family: 'IPv6', text: formatIPv6(groups) };
}

/**
 * Four decimal parts of 0-255, leading zeros allowed. A character scan rather than split and regex:
 * this runs for every endpoint of every Service.
 */
function parseIPv4(text: string): number[] | null {
  const octets: number[] = [];
  let value = 0;
  let digits = 0;
  for (let index = 0; index <= text.length; index++) {
    const code = index < text.length ? text.charCodeAt(index) : DOT;
    if (code >= ZERO && code <= NINE) {
      value = value * 10 + (code - ZERO);
      digits += 1;
      if (value > 255) return null;
    } else if (code === DOT && digits > 0 && octets.length < 4) {
      octets.push(value);
      value = 0;
      digits = 0;
    } else {
      return null;
    }
  }
  return octets.length === 4 ? octets : null;
}

const ZERO = 0x30;
const NINE = 0x39;
const DOT = 0x2e;

function parseIPv6(text: string): number[] | null {
  const ellipsis = text.indexOf('::');
  if (ellipsis !== -1 && text.indexOf('::', ellipsis + 1) !== -1) return null;
  const head = ellipsis === -1 ? text : text.slice(0, ellipsis);
  const tail = ellipsis === -1 ? '' : text.slice(ellipsis + 2);
  const headGroups = parseIPv6Groups(head, ellipsis === -1);
  const tailGroups = parseIPv6Groups(tail, true);
  if (!headGroups || !tailGroups) return null;
  const present = headGroups.length + tailGroups.length;
  if (ellipsis === -1) return present === 8 ? headGroups : null;
  if (present >= 8) return null; // "::" must stand for at least one zero group
  return [...headGroups, ...new Array<number>(8 - present).fill(0), ...tailGroups];
}

/** Colon-separated hex groups; the last may be a dotted IPv4 address (two groups) when allowed. */
function parseIPv6Groups(part: string, mayEndWithIPv4: boolean): number[] | null {
  if (part === '') return [];
  const pieces = part.split(':');
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (mayEndWithIPv4 && index === pieces.length - 1 && piece.includes('.')) {
      const octets = parseIPv4(piece);
      if (!octets) return null;
      groups.push((octets[0] << 8) | octets[1], (octets[2] << 8) | octets[3]);
      continue;
    }
    if (!/^[0-9a-fA-F]{1,32}$/.test(piece)) return null;
    const value = parseInt(piece, 16);
    if (value > 0xffff) return null;
    groups.push(value);
  }
  return groups;
}

function formatIPv6(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 0;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
    start += length;
  }
  const hex = (slice: readonly number[]) => slice.map((group) => group.toString(16)).join(':');
  // A single zero group is never shortened to "::" (RFC 5952).
  if (bestLength < 2) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}
