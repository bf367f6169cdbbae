import { FleetOptionsError } from './fleet-generator.js';
import { CidrError } from './ip-addresses.js';
import { QuantityError } from './quantity.js';
import { SnapshotError } from './snapshots.js';
import { WhatIfError } from './what-if-document.js';

/** Errors caused by what the caller passed in (exit code 2, HTTP 400), as opposed to bugs. */
export function isInputError(error: unknown): error is Error {
  return (
    error instanceof SnapshotError ||
    error instanceof CidrError ||
    error instanceof QuantityError ||
    error instanceof FleetOptionsError ||
    error instanceof WhatIfError
  );
}
