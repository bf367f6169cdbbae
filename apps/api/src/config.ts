import { dbEnvSchema, historyRetentionSetting, readReplicaSettings } from '@zw/db';
import {
  alertsEnvSchema,
  logLevelSetting,
  parseEnvironment,
  queueEnvSchema,
  reportsEnvSchema,
  trafficEnvSchema,
} from '@zw/queue';
import { z } from 'zod';

// GraphQL's limits (graphql-armor rules and the computed cost): a hostile document is refused before
// anything resolves. The defaults leave the dashboard's fleet page (cost ~1,300 at 5 Services a cluster,
// ~4,600 at 20) well inside them. Lists without `first` count once whatever their length (armor's model).
const graphQLSettings = {
  /** `authenticated`: introspection needs a valid API key, like every query; `off`: refused for everyone. */
  GRAPHQL_INTROSPECTION: z.enum(['authenticated', 'off']).default('authenticated'),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).max(100).default(12),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).max(1000).default(15),
  /** Lexical tokens of one document: bounds what a huge query string costs to parse. */
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).default(2000),
  /** Computed cost (graphql-armor's model: objects 2, scalars 1, ×1.5 per level, × `first`) of one operation. */
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(20_000),
  /** A query is charged to its key's rate limit as one request per this much cost (at least one). */
  GRAPHQL_COST_PER_REQUEST: z.coerce.number().int().min(1).default(1000),
  /** Largest `variables` object (serialized JSON) of one operation. */
  GRAPHQL_MAX_VARIABLES_BYTES: z.coerce
    .number()
    .int()
    .min(256)
    .default(64 * 1024),
};

export const apiEnvSchema = dbEnvSchema.extend(queueEnvSchema.shape).extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  /**
   * Prometheus metrics (`GET /metrics`) are served on this port of their own, never on PORT: they hold
   * deployment-wide figures (every organization's clusters and cost), so only the scraper should reach
   * them (a ServiceMonitor or a scrape job on this port; keep it off any Ingress). 9464 is the port the
   * OpenTelemetry Prometheus exporter uses by convention.
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** Address the metrics port listens on (HOST's default: every interface of the pod). */
  METRICS_HOST: z.string().min(1).default('0.0.0.0'),
  /** Largest snapshot accepted, measured uncompressed (a gzip body is limited by what it inflates to). */
  INGEST_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
  /**
   * Snapshots one agent token (one cluster) may push per INGEST_RATE_LIMIT_WINDOW_MS, spread over the
   * window, over all API processes (a token bucket in Redis); at most INGEST_RATE_LIMIT_BURST of them back
   * to back. An agent pushes at
   * most every 30 s by default (--push-min-interval), so the limit bounds only a runaway or hostile one,
   * and the draining of a spool after an outage (the agent honours Retry-After). A healthy agent never
   * pushes twice back to back: the burst only absorbs a restart or a retry landing beside a push.
   */
  INGEST_RATE_LIMIT_REQUESTS: z.coerce.number().int().min(1).default(120),
  INGEST_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1000).default(60_000),
  INGEST_RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(5),
  /**
   * Pushes read at once (body, inflation, parsing, hashing), each in its own thread; the rest wait
   * unread. With INGEST_THREAD_HEAP_MB and INGEST_MAX_BODY_BYTES this bounds ingest's memory.
   */
  INGEST_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** Heap of each ingest thread: a push whose document needs more is refused (413). */
  INGEST_THREAD_HEAP_MB: z.coerce.number().int().min(64).default(512),
  /** Longest one push may take in its thread (inflate to validate); past it the push is refused (413). */
  INGEST_READ_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  /** Longest a push waits for a reading slot before it is answered 503 with Retry-After. */
  INGEST_QUEUE_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * How far in the future (by the API's clock) a snapshot's stated captured-at may lie; beyond it the
   * receive time is recorded instead, and the answer says so (`capturedAtClamped`).
   */
  INGEST_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).default(300),
  /**
   * The worker's history retention, which ingest and simulate apply too: a snapshot captured before it
   * (or before the organization's own) is refused. Give the API the worker's value.
   */
  ...historyRetentionSetting,
  ...readReplicaSettings,
  ...logLevelSetting,
  /** Largest snapshot `POST /v1/simulate` accepts (JSON, uncompressed). */
  SIMULATE_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 * 1024),
  /** Connections of the query API's read pool (plain pg, beside Prisma's DB_POOL_MAX). */
  READ_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  /** Statement timeout of every read-model query. */
  READ_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** Longest wait for a new read-pool connection (an unreachable database answers 503, not a hang). */
  READ_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
  /** Connections of the heavy reads' own pool (savings over a range), apart from READ_POOL_MAX. */
  HEAVY_READ_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(4),
  /** Statement timeout of a heavy read; past it the answer is 503 with Retry-After. */
  HEAVY_READ_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(5000),
  /** Heavy reads one organization may run at once (over all API processes); more wait, then 429. */
  HEAVY_READS_PER_ORGANIZATION: z.coerce.number().int().min(1).default(1),
  /**
   * Most of the time one of an organization's heavy-read slots may be busy while its heavy reads wait in
   * line: between two, it pauses (1 − this) / this of the first's time (0.5: as long as it ran; 1: never).
   */
  HEAVY_READ_DUTY_CYCLE: z.coerce.number().gt(0).max(1).default(0.5),
  /** Longest a heavy read waits for its organization's turn before 429 with Retry-After. */
  HEAVY_READ_QUEUE_WAIT_MS: z.coerce.number().int().min(0).default(2000),
  /** /readyz answers 503 (saturated) when more requests than this wait for a read-pool connection. */
  READY_MAX_POOL_WAITING: z.coerce.number().int().min(0).default(50),
  /** /readyz answers 503 (saturated) when the event loop's delay (p99 over a few seconds) exceeds this. */
  READY_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(1).default(500),
  /** Requests one API key may make per RATE_LIMIT_WINDOW_MS (all routes together), over all API processes. */
  RATE_LIMIT_REQUESTS: z.coerce.number().int().min(1).default(1200),
  /** The window of RATE_LIMIT_REQUESTS and UNAUTHENTICATED_RATE_LIMIT_REQUESTS, in whole seconds (as ms). */
  RATE_LIMIT_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .multipleOf(1000, 'must be a whole number of seconds (a multiple of 1000)')
    .default(60_000),
  /**
   * Refused credentials (missing, unknown, revoked or expired API keys and agent tokens) one client address
   * may present per RATE_LIMIT_WINDOW_MS, over all API processes; past it, its requests answer 429 without a
   * database lookup, except those whose credential may be valid (its prefix is a live key's or token's).
   */
  UNAUTHENTICATED_RATE_LIMIT_REQUESTS: z.coerce.number().int().min(1).default(60),
  /**
   * Express's `trust proxy`: whose `X-Forwarded-For` names the client (the address throttled and audited).
   * Empty: nobody's (the socket's peer is the client); a number: that many proxy hops; else a list of
   * addresses or subnets, or `loopback`, `uniquelocal`…
   */
  TRUST_PROXY: z.string().default(''),
  /**
   * How long a verified API key is trusted without asking Postgres again. Revoking through this API
   * process takes effect at once; through another process (or the database) within this time.
   */
  API_KEY_CACHE_MS: z.coerce.number().int().min(0).default(10_000),
  /**
   * Longest an answer of the read-model cache (fleet, Services pages, zones, CIDRs) is kept; changes drop
   * answers at once (Redis events), this only bounds an answer that outlived a lost event. 0 disables it.
   */
  QUERY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(60_000),
  /**
   * The fleet summary shows snapshot ages, which grow with time: it is recomputed at least this often.
   * Its `generatedAt` says when; ages are as of then.
   */
  FLEET_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  /**
   * The business figures on /metrics (deployment-wide counts and costs) are read from the database at most
   * this often; every scrape in between answers the last read. Their statements read every cluster's
   * current state, so this bounds their cost however often Prometheus scrapes. 0 reads at every scrape.
   */
  BUSINESS_METRICS_TTL_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * Concurrent live-event streams (`GET /v1/events`) one API key, and one organization, may hold open, over
   * all API processes; one more is answered 429 with Retry-After.
   */
  EVENTS_MAX_STREAMS_PER_KEY: z.coerce.number().int().min(1).default(20),
  EVENTS_MAX_STREAMS_PER_ORGANIZATION: z.coerce.number().int().min(1).default(200),
  /** A cluster whose newest snapshot is older than this is reported as stale (its agent stopped pushing). */
  STALE_AFTER_SECONDS: z.coerce.number().int().min(1).default(900),
  /**
   * Service detail computes kube-proxy's view and the hint drift from the newest raw payload; parsed
   * payloads up to this size (uncompressed bytes) are kept in memory, the last few of them.
   */
  LIVE_VIEW_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(16 * 1024 * 1024),
  /**
   * Other origins whose browser pages may call this API (comma-separated, e.g.
   * `https://grafana.example.com,https://ops.example.com`, or `*`). Empty (the default): none; the
   * dashboard served at `/` is same-origin and needs none. Credentials are never allowed across origins:
   * the dashboard's session cookie works on its own origin only, other origins send keys or tokens.
   */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    )
    .refine((origins) => origins.every((origin) => origin === '*' || /^https?:\/\/[^/\s]+$/.test(origin)), {
      message: 'expected comma-separated origins such as https://ops.example.com (scheme and host, no path), or *',
    }),
  /**
   * The address people reach this deployment at (scheme, host and optional path prefix, no trailing
   * slash), e.g. `https://zonewise.example.com`: the SSO redirect URI (`<PUBLIC_URL>/v1/auth/sso/callback`,
   * registered at the identity provider) and the links of alerts are built from it. Unset: the API builds
   * the redirect URI from each request's Host (and X-Forwarded-Proto behind TRUST_PROXY).
   */
  PUBLIC_URL: z
    .string()
    .optional()
    .refine((value) => value === undefined || value === '' || /^https?:\/\/[^/\s]+(\/[^\s]*[^/\s])?$/.test(value), {
      message: 'expected an http(s) URL without a trailing slash, e.g. https://zonewise.example.com',
    })
    .transform((value) => value || undefined),
  /** How long a dashboard session lasts after signing in through SSO; then the person signs in again. */
  SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 86_400)
    .default(8 * 3600),
  /**
   * How long a verified session is trusted without asking Postgres again. Signing out, or an admin
   * signing someone out, through this API process applies at once; through another within this time.
   */
  SESSION_CACHE_MS: z.coerce.number().int().min(0).default(5000),
  /**
   * Lets organizations name identity providers on plain http and on non-public addresses (development and
   * tests only): the API calls the provider itself (discovery, tokens, keys), so by default only https
   * URLs of public addresses are allowed (SSRF).
   */
  SSO_ALLOW_PRIVATE_ISSUERS: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
  /** Longest the API waits for the identity provider (discovery, token exchange, key set). */
  SSO_HTTP_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  /** `development` adds stack traces to GraphQL errors; anything else never shows internals. */
  NODE_ENV: z.string().optional(),
  ...graphQLSettings,
});

export type ApiConfig = z.output<typeof apiEnvSchema>;

/** ConfigModule's `validate`: a bad setting stops the API at boot with one line per problem. */
export function validateApiEnv(env: Record<string, unknown>): ApiConfig {
  return parseEnvironment(apiEnvSchema, env);
}

/**
 * Every schema the API reads its environment with: its own at boot, and the features' (traffic, reports,
 * alerts) when their providers start. The chart's and compose's tests derive the settings they pass from it.
 */
export const API_SETTING_SCHEMAS = [apiEnvSchema, trafficEnvSchema, reportsEnvSchema, alertsEnvSchema] as const;
