import { logOptions } from '@zw/core';
import pino, { type Logger } from 'pino';

/** Structured JSON logs on stdout, one object per line, in the format every zonewise app writes. */
export function createLogger(level: string, name = 'zonewise-agent', destination?: pino.DestinationStream): Logger {
  const options = logOptions(name, level);
  return destination ? pino(options, destination) : pino(options);
}
