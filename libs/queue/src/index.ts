export * from './jobs.js';
export { logLevelSetting, parseEnvironment, queueEnvSchema } from './environment.js';
export * from './redis-target.js';
export * from './reports.js';
export * from './traffic.js';
export * from './live-events.js';
export * from './alerts.js';
