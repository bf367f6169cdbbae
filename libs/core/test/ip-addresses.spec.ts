import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CidrError,
  addOffset,
  addressCount,
  canonicalIp,
  cidrContains,
  formatCidr,
  formatIp,
  hasHostBitsSet,
  lastAddressOf,
  parseCidr,
  parseIp,
  tryParseIp,
} from '../src/ip-addresses.js';

describe('parseIp', () => {
  it('reads dotted IPv4 and any IPv6 notation into family and integer value', () => {
    expect(parseIp('10.96.0.10')).toEqual({ family: 'IPv4', value: 0x0a60000an });
    expect(parseIp('fd00::a')).toEqual({ family: 'IPv6', value: (0xfd00n << 112n) + 10n });
    expect(parseIp('FD00:0:0:0:0:0:0:A')).toEqual(parseIp('fd00::a'));
  });

  it.each([
    '10.96.0.300',
    '10.96.0',
    '1',
    '010.96.0.1',
    '0x0a.0.0.1',
    ' 10.96.0.1',
    '10.96.0.1/32',
    'fe80::1%eth0',
    '1::2::3',
    'fd00::g',
    '',
    'None',
  ])('rejects %j with a message naming it', (text) => {
    expect(() => parseIp(text)).toThrow(CidrError);
    expect(() => parseIp(text)).toThrow(`${JSON.stringify(text)} is not an IPv4 or IPv6 address`);
    expect(tryParseIp(text)).toBeNull();
  });

  it('gives the exact message of the brief', () => {
    expect(() => parseIp('10.96.0.300')).toThrow('"10.96.0.300" is not an IPv4 or IPv6 address');
  });
});

describe('formatIp (RFC 5952)', () => {
  it.each([
    ['2001:0DB8:0000:0000:0001:0000:0000:0001', '2001:db8::1:0:0:1'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['1:0:0:2:0:0:3:4', '1::2:0:0:3:4'],
    ['1:0:2:3:4:5:6:7', '1:0:2:3:4:5:6:7'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['fd00:0:0:0:0:0:1:0', 'fd00::1:0'],
    ['::ffff:10.0.0.1', '::ffff:10.0.0.1'],
    ['::FFFF:a00:1', '::ffff:10.0.0.1'],
    ['10.96.0.10', '10.96.0.10'],
  ])('%s -> %s', (input, canonical) => {
    expect(canonicalIp(input)).toBe(canonical);
  });

  it('round-trips every IPv6 value', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (value) => {
        const text = formatIp({ family: 'IPv6', value });
        expect(text).toBe(text.toLowerCase());
        expect(parseIp(text)).toEqual({ family: 'IPv6', value });
      }),
    );
  });
});

describe('parseCidr', () => {
  it('reads network, prefix and family, and detects host bits', () => {
    const cidr = parseCidr('10.96.0.5/16');
    expect(cidr.family).toBe('IPv4');
    expect(cidr.prefixLength).toBe(16);
    expect(formatCidr(cidr)).toBe('10.96.0.0/16');
    expect(hasHostBitsSet(cidr)).toBe(true);
    expect(hasHostBitsSet(parseCidr('10.96.0.0/16'))).toBe(false);
    expect(formatCidr(parseCidr('FD00::1/64'))).toBe('fd00::/64');
  });

  it.each([
    ['10.96.0.0/33', '"10.96.0.0/33" is not a valid CIDR: prefix length 33 is out of range for IPv4 (0-32)'],
    ['fd00::/129', '"fd00::/129" is not a valid CIDR: prefix length 129 is out of range for IPv6 (0-128)'],
    ['10.96.0.0/abc', '"10.96.0.0/abc" is not a valid CIDR: prefix length "abc" is not a decimal number'],
    ['10.96.0.0/-1', '"10.96.0.0/-1" is not a valid CIDR: prefix length "-1" is not a decimal number'],
    ['10.96.0.0/', '"10.96.0.0/" is not a valid CIDR: prefix length "" is not a decimal number'],
    ['10.96.0.0/016', '"10.96.0.0/016" is not a valid CIDR: prefix length "016" is not a decimal number'],
    ['10.96.0.300/16', '"10.96.0.300/16" is not a valid CIDR: "10.96.0.300" is not an IPv4 or IPv6 address'],
    ['10.96.0.0', '"10.96.0.0" is not a CIDR: it has no "/<prefix length>"'],
    ['banana', '"banana" is not a CIDR: it has no "/<prefix length>"'],
  ])('rejects %s', (text, message) => {
    expect(() => parseCidr(text)).toThrow(CidrError);
    expect(() => parseCidr(text)).toThrow(message);
  });

  it('measures size and last address with bigint', () => {
    expect(addressCount(parseCidr('fd00::/64'))).toBe(1n << 64n);
    expect(formatIp({ family: 'IPv6', value: lastAddressOf(parseCidr('fd00::/64')) })).toBe(
      'fd00::ffff:ffff:ffff:ffff',
    );
    expect(formatIp({ family: 'IPv4', value: lastAddressOf(parseCidr('10.96.0.0/12')) })).toBe('10.111.255.255');
  });
});

describe('containment and offsets', () => {
  it('contains exactly the addresses sharing the prefix, of the same family', () => {
    const cidr = parseCidr('10.96.0.0/16');
    expect(cidrContains(cidr, parseIp('10.96.255.255'))).toBe(true);
    expect(cidrContains(cidr, parseIp('10.97.0.0'))).toBe(false);
    expect(cidrContains(cidr, parseIp('::a60:1'))).toBe(false);
    expect(cidrContains(parseCidr('0.0.0.0/0'), parseIp('255.255.255.255'))).toBe(true);
  });

  it('adds offsets without leaving the address space', () => {
    expect(formatIp(addOffset(parseIp('10.96.0.0'), 256n))).toBe('10.96.1.0');
    expect(formatIp(addOffset(parseIp('fd00::'), 0x10000n))).toBe('fd00::1:0');
    expect(() => addOffset(parseIp('255.255.255.255'), 1n)).toThrow(CidrError);
    expect(() => addOffset(parseIp('::'), -1n)).toThrow(CidrError);
  });
});
