import type { INestApplication, LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { IncomingMessage } from 'node:http';
import { moneyReplacer } from '@zw/core';
import { AppModule } from './app.module.js';
import { validateApiEnv } from './config.js';
import { fragmentNestingLimit } from './graphql/fragment-nesting.js';
import { graphQLPostOnly } from './graphql/graphql-get.middleware.js';
import { JSON_CONTENT_TYPE, jsonBodiesOnly } from './http/media-type.middleware.js';
import { closeAfterAnswer } from './ingest/close-after-answer.js';
import { INGEST_PATH } from './ingest/ingest.controller.js';
import { completeDocument } from './http/openapi.js';
import { dashboardDirectory, serveDashboard } from './http/dashboard.js';
import { httpMetricsMiddleware } from './ops/http-metrics.middleware.js';
import { MetricsService } from './ops/metrics.service.js';
import { AllProblemsFilter } from './problem.js';
import { REQUEST_ID_HEADER, requestIdMiddleware } from './http/request-id.js';

export const SIMULATE_PATH = '/v1/simulate';

/**
 * Builds the API. Nest's default body parsers are off because the ingest route reads its own body
 * (gzip kept as received, a size limit measured uncompressed, and only after authentication); the
 * simulate route takes whole snapshots (SIMULATE_MAX_BODY_BYTES); every other route gets a 1 MB JSON parser.
 * Without a `logger` it logs JSON lines (pino); with one (tests), through that logger.
 */
export async function createApiApp(options: { logger?: LogLevel[] | LoggerService } = {}): Promise<INestApplication> {
  // ConfigModule validates too, but inside Nest's bootstrap a failure is logged with a stack trace and the
  // process aborted; checking first gives the caller (main) a plain error to print.
  const config = validateApiEnv(process.env);
  const jsonLogs = options.logger === undefined;
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot({ jsonLogs }), {
    bodyParser: false,
    ...(jsonLogs ? { bufferLogs: true } : { logger: options.logger }),
  });
  if (jsonLogs) app.useLogger(app.get(Logger));
  app.disable('x-powered-by'); // no answer names the framework behind it
  if (config.TRUST_PROXY) app.set('trust proxy', trustProxySetting(config.TRUST_PROXY));
  app.use(requestIdMiddleware());
  app.use(httpMetricsMiddleware(app.get(MetricsService)));
  if (config.CORS_ORIGINS.length > 0) {
    app.enableCors({
      origin: config.CORS_ORIGINS.includes('*') ? '*' : config.CORS_ORIGINS,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'If-None-Match', 'Last-Event-ID'],
      exposedHeaders: [
        'ETag',
        'Location',
        'Retry-After',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'RateLimit',
        'RateLimit-Policy',
        REQUEST_ID_HEADER,
      ],
      maxAge: 600,
    });
  }
  serveDashboard(app, dashboardDirectory());
  app.use(INGEST_PATH, closeAfterAnswer());
  app.use(graphQLPostOnly());
  app.use(jsonBodiesOnly());
  const isJson = (request: IncomingMessage) => JSON_CONTENT_TYPE.test(request.headers['content-type'] ?? '');
  app.useBodyParser('json', {
    limit: config.SIMULATE_MAX_BODY_BYTES,
    type: (request: IncomingMessage) => request.url?.startsWith(SIMULATE_PATH) === true && isJson(request),
  });
  app.useBodyParser('json', {
    limit: '1mb',
    type: (request: IncomingMessage) => !request.url?.startsWith(INGEST_PATH) && isJson(request),
  });
  app.use(fragmentNestingLimit(config.GRAPHQL_MAX_DEPTH, config.GRAPHQL_MAX_TOKENS));
  // Every `cost` of every JSON answer in cents (res.json); cached answers and GraphQL use the same replacer.
  app.set('json replacer', moneyReplacer);
  app.useGlobalFilters(new AllProblemsFilter());
  setUpOpenApi(app);
  app.enableShutdownHooks();
  return app;
}

/** TRUST_PROXY as Express reads it: a hop count, or a list of addresses, subnets and names. */
function trustProxySetting(value: string): number | string[] {
  return /^\d+$/.test(value) ? Number(value) : value.split(',').map((part) => part.trim());
}

/** The generated OpenAPI document: UI at /docs, JSON at /docs-json. */
function setUpOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, openApiDocument(app), { jsonDocumentUrl: 'docs-json' });
}

/**
 * The API's OpenAPI document, from the routes' decorators and zod schemas: what /docs-json serves, and
 * what the dashboard's types are generated from (openapi-cli.ts, scripts/api-types.mjs).
 */
export function openApiDocument(app: INestApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('zonewise API')
      .setDescription(
        'Topology Aware Routing health, history and inter-AZ savings of a fleet of Kubernetes clusters. ' +
          "Send `Authorization: Bearer <API key>` (or a token of your organization's identity provider); the dashboard signs in through SSO and sends its session cookie. Errors are `application/problem+json` (RFC 9457).",
      )
      .setVersion('1')
      .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
      .addServer('/', 'the server this document is served from')
      // API keys and agent tokens are opaque random strings; only the identity provider's tokens are JWTs.
      .addBearerAuth(
        { type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'an API key (zwk_…)' },
        'apiKey',
      )
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "a token of the organization's OpenID Connect provider (for programs): its issuer and audience name the organization, its groups claim the role",
        },
        'oidcToken',
      )
      .addCookieAuth(
        '__Host-zw_session',
        {
          type: 'apiKey',
          in: 'cookie',
          description:
            'the dashboard session cookie (set by signing in through SSO); requests that change something also need X-CSRF-Token',
        },
        'session',
      )
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'opaque',
          description: "a cluster's agent token (zwa_…): it only pushes that cluster's snapshots",
        },
        'agentToken',
      )
      .build(),
  );
  completeDocument(document);
  delete (document.info as { contact?: unknown }).contact; // DocumentBuilder's empty default
  return document;
}
