export * from './jobs.js';
export { parseEnvironment, queueEnvSchema } from './environment.js';
export * from './reports.js';
export * from './traffic.js';
