import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bandOffsetFor, describeCidr, serviceIpRange } from '../src/cidr-bands.js';
import { CidrError, parseCidr, parseIp } from '../src/ip-addresses.js';

/** Number of addresses a band of the JSON contract covers, read back from its text. */
function bandSize(band: { first: string; last: string } | null): bigint {
  return band === null ? 0n : parseIp(band.last).value - parseIp(band.first).value + 1n;
}

function sizeOf(size: number | string): bigint {
  return BigInt(size);
}

describe('band offset table (ipallocator/bitmap.go calculateRangeOffset)', () => {
  it.each([
    ['10.96.0.0/32', 1n, 0],
    ['10.96.0.0/30', 4n, 0],
    ['10.96.0.0/28', 16n, 0],
    ['fd00::/128', 1n, 0],
    ['fd00::/126', 4n, 0],
    ['fd00::/124', 16n, 0],
    ['10.96.0.0/27', 32n, 16],
    ['fd00::/123', 32n, 16],
    ['fd00::/122', 64n, 16],
    ['10.96.0.0/24', 256n, 16],
    ['10.96.0.0/22', 1024n, 64],
    ['fd00::/118', 1024n, 64],
    ['10.96.0.0/20', 4096n, 256],
    ['10.96.0.0/16', 65536n, 256],
    ['10.96.0.0/12', 1048576n, 256],
    ['10.0.0.0/8', 16777216n, 256],
    ['fd00::/112', 65536n, 256],
    ['fd00::/108', 1048576n, 256],
    ['fd00::/64', 1n << 64n, 256],
    ['fd00::/12', 1n << 116n, 256],
  ])('%s: cidrSize %s, offset %i', (cidr, cidrSize, offset) => {
    const range = serviceIpRange(parseCidr(cidr));
    expect(range.cidrSize).toBe(cidrSize);
    expect(range.bandOffset).toBe(offset);
    expect(bandOffsetFor(cidrSize)).toBe(offset);
    expect(describeCidr(cidr).description.bandOffset).toBe(offset);
  });
});

describe('worked examples, IPv4', () => {
  it.each([
    ['10.96.0.0/24', 16, 254, ['10.96.0.1', '10.96.0.16', 16n], ['10.96.0.17', '10.96.0.254', 238n]],
    ['10.96.0.0/20', 256, 4094, ['10.96.0.1', '10.96.1.0', 256n], ['10.96.1.1', '10.96.15.254', 3838n]],
    ['10.96.0.0/16', 256, 65534, ['10.96.0.1', '10.96.1.0', 256n], ['10.96.1.1', '10.96.255.254', 65278n]],
    ['10.96.0.0/12', 256, 1048574, ['10.96.0.1', '10.96.1.0', 256n], ['10.96.1.1', '10.111.255.254', 1048318n]],
    ['10.96.0.0/22', 64, 1022, ['10.96.0.1', '10.96.0.64', 64n], ['10.96.0.65', '10.96.3.254', 958n]],
    ['10.96.0.0/27', 16, 30, ['10.96.0.1', '10.96.0.16', 16n], ['10.96.0.17', '10.96.0.30', 14n]],
  ] as const)('%s', (cidr, offset, usable, [staticFirst, staticLast, staticCount], [dynFirst, dynLast, dynCount]) => {
    const { description, warnings } = describeCidr(cidr);
    expect(warnings).toEqual([]);
    expect(description).toEqual({
      cidr,
      family: 'IPv4',
      size: usable,
      bandOffset: offset,
      staticBand: { first: staticFirst, last: staticLast },
      dynamicBand: { first: dynFirst, last: dynLast },
    });
    expect(bandSize(description.staticBand)).toBe(staticCount);
    expect(bandSize(description.dynamicBand)).toBe(dynCount);
  });

  it.each([
    ['10.96.0.0/28', 14, '10.96.0.14'],
    ['10.96.0.0/29', 6, '10.96.0.6'],
  ])('%s has no static band: the whole usable range is dynamic', (cidr, usable, last) => {
    const { description } = describeCidr(cidr);
    expect(description).toEqual({
      cidr,
      family: 'IPv4',
      size: usable,
      bandOffset: 0,
      staticBand: null,
      dynamicBand: { first: '10.96.0.1', last },
    });
  });
});

describe('worked examples, IPv6 under the IPAddress allocator (ipallocator.go)', () => {
  it.each([
    ['fd00::/120', 16, 255, ['fd00::1', 'fd00::10'], ['fd00::11', 'fd00::ff']],
    ['fd00::/112', 256, 65535, ['fd00::1', 'fd00::100'], ['fd00::101', 'fd00::ffff']],
    ['fd00::/108', 256, 1048575, ['fd00::1', 'fd00::100'], ['fd00::101', 'fd00::f:ffff']],
    ['fd00::/64', 256, '18446744073709551615', ['fd00::1', 'fd00::100'], ['fd00::101', 'fd00::ffff:ffff:ffff:ffff']],
  ] as const)('%s', (cidr, offset, size, [staticFirst, staticLast], [dynFirst, dynLast]) => {
    expect(describeCidr(cidr)).toEqual({
      description: {
        cidr,
        family: 'IPv6',
        size,
        bandOffset: offset,
        staticBand: { first: staticFirst, last: staticLast },
        dynamicBand: { first: dynFirst, last: dynLast },
      },
      warnings: [],
    });
  });

  it('fd00::/64: size 2^64-1 is a decimal string, since it exceeds 2^53-1', () => {
    const { description } = describeCidr('fd00::/64');
    expect(description.size).toBe(((1n << 64n) - 1n).toString());
    expect(sizeOf(description.size)).toBe(bandSize(description.staticBand) + bandSize(description.dynamicBand));
  });

  it('fd00::/48 still gets bands but is not allocatable, with the upstream reason', () => {
    const { description } = describeCidr('fd00::/48');
    expect(description).toMatchObject({
      cidr: 'fd00::/48',
      family: 'IPv6',
      bandOffset: 256,
      staticBand: { first: 'fd00::1', last: 'fd00::100' },
      dynamicBand: { first: 'fd00::101', last: 'fd00::ffff:ffff:ffff:ffff:ffff' },
      allocatable: false,
      reason: 'shortest allowed prefix length for service CIDR is 64, got 48',
    });
    expect(description.size).toBe(((1n << 80n) - 1n).toString());
  });

  it('size stays a number up to 2^53-1 and becomes a string above', () => {
    expect(describeCidr('fd00::/75').description.size).toBe(Number.MAX_SAFE_INTEGER);
    expect(describeCidr('fd00::/74').description.size).toBe(((1n << 54n) - 1n).toString());
  });
});

describe('10.96.0.0/24, /20 and /16: range size, band offset and both bands', () => {
  // Range size, band offset, first and last address of the static band, last address of the range.
  it.each([
    ['10.96.0.0/24', 8, 254, 256, 16, '10.96.0.1', '10.96.0.16', '10.96.0.254'],
    ['10.96.0.0/20', 12, 4094, 4096, 256, '10.96.0.1', '10.96.1.0', '10.96.15.254'],
    ['10.96.0.0/16', 16, 65534, 65536, 256, '10.96.0.1', '10.96.1.0', '10.96.255.254'],
  ])('%s', (cidr, hostBits, rangeSize, cidrSize, offset, staticStart, staticEnd, rangeEnd) => {
    expect(2 ** hostBits - 2).toBe(rangeSize);
    expect(Math.min(Math.max(16, cidrSize / 16), 256)).toBe(offset);
    const { description } = describeCidr(cidr);
    expect(description.size).toBe(rangeSize);
    expect(description.bandOffset).toBe(offset);
    expect(description.staticBand?.first).toBe(staticStart);
    expect(description.staticBand?.last).toBe(staticEnd);
    expect(description.dynamicBand?.last).toBe(rangeEnd);
  });

  it('prints the CLI contract example for 10.96.0.0/16 exactly', () => {
    expect(JSON.stringify(describeCidr('10.96.0.0/16').description)).toBe(
      JSON.stringify({
        cidr: '10.96.0.0/16',
        family: 'IPv4',
        size: 65534,
        bandOffset: 256,
        staticBand: { first: '10.96.0.1', last: '10.96.1.0' },
        dynamicBand: { first: '10.96.1.1', last: '10.96.255.254' },
      }),
    );
  });

  it('puts the DNS convention address 10.96.0.10 in the static band of 10.96.0.0/16', () => {
    const range = serviceIpRange(parseCidr('10.96.0.0/16'));
    const dns = parseIp('10.96.0.10').value;
    expect(range.staticBand !== null && dns >= range.staticBand.first && dns <= range.staticBand.last).toBe(true);
  });
});

describe('host bits, tiny ranges and bad input', () => {
  it('reads a CIDR with host bits set as its network and warns beside the JSON', () => {
    const { description, warnings } = describeCidr('10.96.0.5/16');
    expect(warnings).toEqual(['10.96.0.5/16 has host bits set; using 10.96.0.0/16']);
    expect(description.cidr).toBe('10.96.0.0/16');
    expect(description.staticBand).toEqual({ first: '10.96.0.1', last: '10.96.1.0' });
    expect(Object.keys(description)).not.toContain('warnings');
  });

  it('warns in canonical form for IPv6 too', () => {
    expect(describeCidr('FD00::5/64').warnings).toEqual(['fd00::5/64 has host bits set; using fd00::/64']);
  });

  it.each([
    ['10.96.0.0/31', 'IPv4', 'the network and broadcast addresses'],
    ['10.96.0.0/32', 'IPv4', 'the network and broadcast addresses'],
    ['fd00::/128', 'IPv6', 'the network address'],
  ])('%s has no usable address: size 0, no bands, not allocatable', (cidr, family, never) => {
    expect(describeCidr(cidr).description).toEqual({
      cidr,
      family,
      size: 0,
      bandOffset: 0,
      staticBand: null,
      dynamicBand: null,
      allocatable: false,
      reason: `${cidr} has no usable addresses: the allocator never hands out ${never}, so every allocation fails with "range is full"`,
    });
  });

  it('IPv6 /127 keeps one usable address (the all-ones address)', () => {
    expect(describeCidr('fd00::/127').description).toMatchObject({
      size: 1,
      staticBand: null,
      dynamicBand: { first: 'fd00::1', last: 'fd00::1' },
    });
  });

  it.each(['10.96.0.0/33', '10.96.0.300/16', 'bogus', '10.96.0.0', 'fd00::/129', '10.96.0.0/1x'])(
    'rejects %j with a CidrError naming it',
    (text) => {
      expect(() => describeCidr(text)).toThrow(CidrError);
      expect(() => describeCidr(text)).toThrow(JSON.stringify(text));
    },
  );
});

describe('properties', () => {
  const anyCidr = fc.oneof(
    fc
      .record({ prefix: fc.integer({ min: 0, max: 32 }), value: fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }) })
      .map(({ prefix, value }) => ({ prefix, bits: 32, text: `${ipv4Text(value)}/${prefix}` })),
    fc
      .record({ prefix: fc.integer({ min: 0, max: 128 }), value: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }) })
      .map(({ prefix, value }) => ({ prefix, bits: 128, text: `${ipv6Text(value)}/${prefix}` })),
  );

  it('static band size + dynamic band size = usable size, for any prefix', () => {
    fc.assert(
      fc.property(anyCidr, ({ text }) => {
        const { description } = describeCidr(text);
        expect(bandSize(description.staticBand) + bandSize(description.dynamicBand)).toBe(sizeOf(description.size));
      }),
      { numRuns: 500 },
    );
  });

  it('bandOffset = min(max(16, cidrSize/16), 256) for cidrSize > 16, else 0', () => {
    fc.assert(
      fc.property(anyCidr, ({ prefix, bits, text }) => {
        const cidrSize = 1n << BigInt(bits - prefix);
        const sixteenth = cidrSize / 16n;
        const expected = cidrSize > 16n ? (sixteenth < 16n ? 16n : sixteenth > 256n ? 256n : sixteenth) : 0n;
        expect(BigInt(describeCidr(text).description.bandOffset)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('the static band, when present, starts right after the network and the dynamic band follows it', () => {
    fc.assert(
      fc.property(anyCidr, ({ text }) => {
        const range = serviceIpRange(parseCidr(text));
        if (range.staticBand !== null) expect(range.staticBand.first).toBe(range.cidr.network + 1n);
        if (range.staticBand !== null && range.dynamicBand !== null) {
          expect(range.dynamicBand.first).toBe(range.staticBand.last + 1n);
        }
      }),
      { numRuns: 300 },
    );
  });
});

function ipv4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => ((value >> shift) & 255n).toString()).join('.');
}

function ipv6Text(value: bigint): string {
  return Array.from({ length: 8 }, (_, group) => ((value >> BigInt(112 - 16 * group)) & 0xffffn).toString(16)).join(
    ':',
  );
}
