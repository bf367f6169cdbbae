/** Injection token of the validated WorkerConfig. */
export const WORKER_CONFIG = Symbol('WORKER_CONFIG');
