/**
 * Kubernetes resource quantities (`4`, `3920m`, `1.5`, `2k`, `1Ki`, `1e3`, …), as apimachinery's
 * `resource.ParseQuantity` reads them, held exactly as a whole number of nano-units.
 *
 * Only what the EndpointSlice controller needs for allocatable CPU is provided: parse, add, test for
 * zero and convert to millicores rounding up (`Quantity.MilliValue`).
 */

/** An exact, non-negative quantity in nano-units (for CPU: nanocores). */
export interface Quantity {
  readonly nanos: bigint;
}

export const ZERO_QUANTITY: Quantity = { nanos: 0n };

export class QuantityError extends Error {
  constructor(
    message: string,
    /** The text that could not be used as a quantity. */
    readonly text: string,
  ) {
    super(message);
    this.name = 'QuantityError';
  }
}

const DECIMAL_SUFFIX_EXPONENTS: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

const BINARY_SUFFIX_POWERS: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** Sign, integer digits, fraction digits, suffix: the same split as apimachinery's scanner. */
const QUANTITY_SHAPE = /^([+-]?)(\d*)(?:\.(\d*))?([eEinumkKMGTP]*[+-]?\d*)$/;
const DECIMAL_EXPONENT_SUFFIX = /^[eE]([+-]?\d+)$/;

const NANOS_PER_UNIT_DIGITS = 9;
const NANOS_PER_MILLI = 1_000_000n;
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
/** apimachinery's `maxAllowed`: 2^63-1 whole units. */
const MAX_NANOS = INT64_MAX * 10n ** BigInt(NANOS_PER_UNIT_DIGITS);
/** 10^41 nano-units already exceed MAX_NANOS; checked before building huge powers of ten. */
const MAX_NANOS_DIGITS = MAX_NANOS.toString().length;

const EXPECTED_SHAPE = 'expected a number with an optional suffix such as 4, 3920m, 1.5';

/**
 * Parses a Kubernetes quantity.
 *
 * Decision: values finer than one nano-unit round UP to the next nano-unit, as apimachinery does
 * ("if you want some resources, you should get some resources"): `1e-12` is 1n, never 0.
 * Decision: negative quantities are rejected (allocatable CPU cannot be negative); `-0` is zero.
 * Decision: forms apimachinery's scanner lets through without any digit (`+`, `-`, `.`, `.m`) are
 * rejected: they read as zero upstream, but in a snapshot they are typos, and a silent zero would
 * disable hints for the whole cluster.
 * Decision: values above 2^63-1 units are rejected. apimachinery caps binary-suffixed values there and
 * lets decimal ones overflow `MilliValue`; neither is a meaningful CPU amount.
 * Decision: the suffix case is exact (`1K`, `1ki` are errors), as in upstream apimachinery.
 */
export function parseQuantity(text: string): Quantity {
  const shape = QUANTITY_SHAPE.exec(text);
  if (shape === null) throw notAQuantity(text);
  const [, sign = '', integerDigits = '', fractionDigits = '', suffix = ''] = shape;
  if (integerDigits === '' && fractionDigits === '') throw notAQuantity(text);

  const scale = suffixScale(text, suffix);
  const mantissa = BigInt(integerDigits + fractionDigits);
  if (mantissa === 0n) return ZERO_QUANTITY;
  if (sign === '-') {
    throw new QuantityError(
      `${JSON.stringify(text)} is a negative quantity (allocatable CPU cannot be negative)`,
      text,
    );
  }

  const nanos = scaleToNanos(
    mantissa << BigInt(scale.binaryPower),
    NANOS_PER_UNIT_DIGITS + scale.decimalExponent - fractionDigits.length,
  );
  if (nanos === null || nanos > MAX_NANOS) {
    throw new QuantityError(`${JSON.stringify(text)} is too large for a quantity (at most ${INT64_MAX} units)`, text);
  }
  return { nanos };
}

export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos };
}

export function isZeroQuantity(q: Quantity): boolean {
  return q.nanos === 0n;
}

/** Whole millicores, rounded up like `Quantity.MilliValue` (`100u` -> 1). */
export function toMillisCeil(q: Quantity): number {
  return Number(ceilDiv(q.nanos, NANOS_PER_MILLI));
}

interface SuffixScale {
  decimalExponent: number;
  binaryPower: number;
}

function suffixScale(text: string, suffix: string): SuffixScale {
  const decimal = DECIMAL_SUFFIX_EXPONENTS[suffix];
  if (decimal !== undefined) return { decimalExponent: decimal, binaryPower: 0 };
  const binary = BINARY_SUFFIX_POWERS[suffix];
  if (binary !== undefined) return { decimalExponent: 0, binaryPower: binary };
  const exponent = DECIMAL_EXPONENT_SUFFIX.exec(suffix)?.[1];
  if (exponent !== undefined) {
    const value = BigInt(exponent);
    // Decision: like apimachinery (strconv.ParseInt), an exponent beyond int64 is a format error.
    if (value >= INT64_MIN && value <= INT64_MAX) return { decimalExponent: Number(value), binaryPower: 0 };
  }
  throw notAQuantity(text);
}

/** `numerator * 10^exponent`, rounded up to a whole number; null when it is certainly too large. */
function scaleToNanos(numerator: bigint, exponent: number): bigint | null {
  if (exponent >= 0) {
    if (exponent > MAX_NANOS_DIGITS) return null;
    return numerator * 10n ** BigInt(exponent);
  }
  // numerator < 10^digits <= 10^-exponent: a positive amount below one nano-unit rounds up to 1.
  if (-exponent >= numerator.toString().length) return 1n;
  return ceilDiv(numerator, 10n ** BigInt(-exponent));
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return quotient * denominator === numerator ? quotient : quotient + 1n;
}

function notAQuantity(text: string): QuantityError {
  return new QuantityError(`${JSON.stringify(text)} is not a Kubernetes quantity (${EXPECTED_SHAPE})`, text);
}
