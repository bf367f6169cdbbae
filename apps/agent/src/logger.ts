import pino, { type Logger } from 'pino';

/** Structured JSON logs on stdout, one object per line, with ISO timestamps and the level as a word. */
export function createLogger(level: string, name = 'zonewise-agent', destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { name },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return destination ? pino(options, destination) : pino(options);
}
