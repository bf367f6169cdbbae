import type { INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { IncomingMessage } from 'node:http';
import { AppModule } from './app.module.js';
import { validateApiEnv } from './config.js';
import { INGEST_PATH } from './ingest/ingest.controller.js';

const JSON_CONTENT_TYPE = /^application\/([\w.+-]+\+)?json\b/i;

/**
 * Builds the API. Nest's default body parsers are off because the ingest route reads its own body
 * (gzip kept as received, a size limit measured uncompressed, and only after authentication); every
 * other route gets the ordinary JSON parser.
 */
export async function createApiApp(options: { logger?: LogLevel[] } = {}): Promise<INestApplication> {
  // ConfigModule validates too, but inside Nest's bootstrap a failure is logged with a stack trace and the
  // process aborted; checking first gives the caller (main) a plain error to print.
  validateApiEnv(process.env);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(), {
    bodyParser: false,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  app.useBodyParser('json', {
    limit: '1mb',
    type: (request: IncomingMessage) =>
      !request.url?.startsWith(INGEST_PATH) && JSON_CONTENT_TYPE.test(request.headers['content-type'] ?? ''),
  });
  app.enableShutdownHooks();
  return app;
}
