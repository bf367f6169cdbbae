import type { LoggerOptions } from 'pino';

/** Levels every app accepts for its logs (pino's, plus `silent`). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

export function isLogLevel(text: string): text is LogLevelName {
  return (LOG_LEVELS as readonly string[]).includes(text);
}

/**
 * Where a secret could sit in a log object: credentials of requests and answers, and any field named
 * like one. pino replaces them before the line is written.
 */
const SECRET_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  '*.authorization',
  '*.token',
  '*.apiKey',
  '*.secret',
  '*.password',
];

/**
 * The one log format of every zonewise app (api, worker, agent, simulator): a JSON object per line, the
 * app's name, an ISO timestamp and the level as a word, secrets redacted.
 */
export function logOptions(name: string, level: string): LoggerOptions {
  return {
    level,
    base: { name },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: SECRET_PATHS, censor: '[redacted]' },
  };
}
