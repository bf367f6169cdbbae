import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  QuantityError,
  ZERO_QUANTITY,
  addQuantities,
  isZeroQuantity,
  parseQuantity,
  toMillisCeil,
} from '../src/quantity.js';

const nanos = (text: string): bigint => parseQuantity(text).nanos;

describe('parseQuantity', () => {
  it.each([
    ['4', 4_000_000_000n],
    ['3920m', 3_920_000_000n],
    ['1.5', 1_500_000_000n],
    ['+0.5', 500_000_000n],
    ['.5', 500_000_000n],
    ['5.', 5_000_000_000n],
    ['100u', 100_000n],
    ['250n', 250n],
    ['2k', 2_000_000_000_000n],
    ['1M', 10n ** 15n],
    ['1G', 10n ** 18n],
    ['1T', 10n ** 21n],
    ['1P', 10n ** 24n],
    ['1E', 10n ** 27n],
    ['1Ki', 1024n * 10n ** 9n],
    ['1.5Ki', 1536n * 10n ** 9n],
    ['1Mi', 2n ** 20n * 10n ** 9n],
    ['1Gi', 2n ** 30n * 10n ** 9n],
    ['1Ti', 2n ** 40n * 10n ** 9n],
    ['1Pi', 2n ** 50n * 10n ** 9n],
    ['1e3', 1000n * 10n ** 9n],
    ['1E3', 1000n * 10n ** 9n],
    ['1e+3', 1000n * 10n ** 9n],
    ['15e-1', 1_500_000_000n],
    ['1.5e-3', 1_500_000n],
    ['0', 0n],
    ['000', 0n],
    ['0.000', 0n],
    ['-0', 0n],
    ['0m', 0n],
    ['007', 7_000_000_000n],
  ])('%s is %d nano-units', (text, expected) => {
    expect(nanos(text)).toBe(expected);
  });

  it('rounds values finer than a nano-unit up, as Kubernetes does', () => {
    expect(nanos('0.5n')).toBe(1n);
    expect(nanos('1.0000000001')).toBe(1_000_000_001n);
    expect(nanos('1e-12')).toBe(1n);
    expect(nanos('1e-999999999')).toBe(1n);
    expect(nanos('0.1u')).toBe(100n);
  });

  it.each([
    'abc',
    '',
    ' 4',
    '4 ',
    '4c',
    '1K',
    '1ki',
    '1e',
    '1e1.5',
    '1.2.3',
    '+',
    '-',
    '.',
    'm',
    '1Kii',
    '1mi',
    '0x10',
    '1_000',
    '1,5',
  ])('rejects %j with a message naming the text and the expected shape', (text) => {
    const error = captureError(() => parseQuantity(text));
    expect(error).toBeInstanceOf(QuantityError);
    expect(error.message).toBe(
      `${JSON.stringify(text)} is not a Kubernetes quantity (expected a number with an optional suffix such as 4, 3920m, 1.5)`,
    );
    expect((error as QuantityError).text).toBe(text);
  });

  it('rejects negative quantities: allocatable CPU cannot be negative', () => {
    const error = captureError(() => parseQuantity('-500m'));
    expect(error).toBeInstanceOf(QuantityError);
    expect(error.message).toBe('"-500m" is a negative quantity (allocatable CPU cannot be negative)');
  });

  it('rejects quantities beyond 2^63-1 units', () => {
    expect(nanos('9223372036854775807')).toBe(((1n << 63n) - 1n) * 10n ** 9n);
    for (const text of ['9223372036854775808', '1e30', '1e999999999', '16Ei']) {
      expect(() => parseQuantity(text)).toThrow(/is too large for a quantity/);
    }
  });

  it('rejects exponents outside int64, like strconv.ParseInt', () => {
    expect(() => parseQuantity('1e99999999999999999999')).toThrow(QuantityError);
  });

  it('reads any decimal number with a decimal suffix exactly (property)', () => {
    const suffixes: [string, number][] = [
      ['n', -9],
      ['u', -6],
      ['m', -3],
      ['', 0],
      ['k', 3],
      ['M', 6],
      ['G', 9],
    ];
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 9n }),
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom(...suffixes),
        (mantissa, decimals, [suffix, exponent]) => {
          const digits = mantissa.toString().padStart(decimals + 1, '0');
          const text = decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
          const shift = 9 + exponent - decimals;
          const expected = shift >= 0 ? mantissa * 10n ** BigInt(shift) : ceilDiv(mantissa, 10n ** BigInt(-shift));
          expect(nanos(text + suffix)).toBe(expected);
        },
      ),
    );
  });
});

describe('quantity arithmetic', () => {
  it('adds exactly', () => {
    expect(addQuantities(parseQuantity('100u'), parseQuantity('100u')).nanos).toBe(200_000n);
    expect(addQuantities(parseQuantity('3500m'), parseQuantity('1.5')).nanos).toBe(5_000_000_000n);
  });

  it('knows zero', () => {
    expect(isZeroQuantity(ZERO_QUANTITY)).toBe(true);
    expect(isZeroQuantity(parseQuantity('0m'))).toBe(true);
    expect(isZeroQuantity(parseQuantity('1n'))).toBe(false);
  });

  it.each([
    ['4', 4000],
    ['3500m', 3500],
    ['15890m', 15890],
    ['100u', 1],
    ['1n', 1],
    ['1000001n', 2],
    ['1.0001', 1001],
    ['0', 0],
  ])('toMillisCeil(%s) = %d (rounds up to whole millicores)', (text, millis) => {
    expect(toMillisCeil(parseQuantity(text))).toBe(millis);
  });

  it('rounds the sum, not each part: 100u + 100u is 1 millicore, not 2', () => {
    const sum = addQuantities(parseQuantity('100u'), parseQuantity('100u'));
    expect(toMillisCeil(sum)).toBe(1);
  });
});

function captureError(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
