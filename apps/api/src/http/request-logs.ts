import type { DynamicModule } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { logOptions } from '@zw/core';
import { LoggerModule } from 'nestjs-pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiConfig } from '../config.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** Probes ask every few seconds; their answers are on /readyz and in the metrics, not in the logs. */
const UNLOGGED_PATHS = new Set(['/healthz', '/readyz']);

/**
 * The API's logs as JSON lines (pino, LOG_LEVEL): Nest's own messages and one line per answered request,
 * carrying the request id every answer states (X-Request-Id). A request is logged by method, path (no
 * query: an SSO callback's carries its code) and status only: no header, so no key, token or cookie.
 */
export function jsonLogsModule(): DynamicModule {
  return LoggerModule.forRootAsync({
    inject: [ConfigService],
    useFactory: (config: ConfigService<ApiConfig, true>) => ({
      pinoHttp: {
        ...logOptions('zonewise-api', config.get('LOG_LEVEL', { infer: true })),
        genReqId: (_request: IncomingMessage, response: ServerResponse) =>
          String(response.getHeader(REQUEST_ID_HEADER)),
        autoLogging: { ignore: (request: IncomingMessage) => UNLOGGED_PATHS.has(pathOf(request)) },
        serializers: {
          req: (request: { id: unknown; method: string; url: string }) => ({
            id: request.id,
            method: request.method,
            path: pathOf(request),
          }),
          res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
        },
      },
    }),
  });
}

function pathOf(request: { url?: string }): string {
  return (request.url ?? '').split('?')[0];
}
