/**
 * The model against the measurement: a Service's estimated volume, cross-zone fraction and cost beside
 * the measured ones, and the error of each.
 */

export interface ModelVsMeasuredInput {
  /** The volume the model would use without a measurement (annotation or per-endpoint default). */
  estimatedGb: number;
  /** The model's cross-zone fraction for today's routing (`withHints`). */
  estimatedCrossZone: number;
  measuredGb: number | null;
  measuredCrossZone: number | null;
  pricePerGb: number;
}

/** One side of the comparison: volume (GB per month), cross-zone fraction, monthly cross-zone cost (USD). */
export interface TrafficFigures<T> {
  trafficGb: T;
  crossZone: T;
  cost: T;
}

/**
 * The model against the measurement, side by side. Every money amount is a number named `cost`, as in
 * every other answer (so answers round it to cents alike).
 */
export interface ModelVsMeasured {
  /** The model's inputs alone: declared or default volume × modelled fraction × price. */
  estimated: TrafficFigures<number>;
  /** Measured volume × measured fraction × price (null where the source gives no zones). */
  measured: TrafficFigures<number | null>;
  /** estimated − measured, field by field (null where there is no measurement). */
  error: TrafficFigures<number | null>;
}

export function modelVsMeasured(input: ModelVsMeasuredInput): ModelVsMeasured {
  const estimated = {
    trafficGb: input.estimatedGb,
    crossZone: input.estimatedCrossZone,
    cost: input.estimatedGb * input.estimatedCrossZone * input.pricePerGb,
  };
  const measured = {
    trafficGb: input.measuredGb,
    crossZone: input.measuredCrossZone,
    cost:
      input.measuredGb !== null && input.measuredCrossZone !== null
        ? input.measuredGb * input.measuredCrossZone * input.pricePerGb
        : null,
  };
  return { estimated, measured, error: errorOf(estimated, measured) };
}

/** estimated − measured for every field both sides have. */
export function errorOf<K extends string>(
  estimated: Record<K, number>,
  measured: Record<K, number | null>,
): Record<K, number | null> {
  const error = {} as Record<K, number | null>;
  for (const key of Object.keys(estimated) as K[]) {
    const value = measured[key];
    error[key] = value === null ? null : estimated[key] - value;
  }
  return error;
}
