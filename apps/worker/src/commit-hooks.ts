/**
 * What runs around the commit of each snapshot's write transaction: nothing in production. The seam lets
 * test support (test/support/faulty-worker.mjs) stall a commit or kill the process right after one, to
 * prove that a worker dying at the worst moments loses and duplicates nothing.
 */
export interface CommitHooks {
  /** Inside the transaction, its writes done and the cluster's lock held, before it commits. */
  beforeCommit?(): Promise<void>;
  /** Right after the transaction committed, before the job is reported complete. */
  afterCommit?(): void;
}

/** Injection token of the worker's CommitHooks. */
export const COMMIT_HOOKS = Symbol('COMMIT_HOOKS');
