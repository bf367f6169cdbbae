import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { GraphQLModule } from '@nestjs/graphql';
import { moneyReplacer } from '@zw/core';
import { ReadDb } from '@zw/db';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { ServerResponse } from 'node:http';
import { Authenticator } from '../auth/authenticator.js';
import type { CallerRequest } from '../auth/caller.js';
import { ApiKeyRateLimitGuard } from '../auth/rate-limit.guard.js';
import type { ApiConfig } from '../config.js';
import { graphQLExtensions, logInternalError, problemOf } from '../problem.js';
import { AuthModule } from '../auth/auth.module.js';
import { ReadDbModule } from '../read-db.module.js';
import { armorProtection, gatePlugin } from './graphql-limits.js';
import { HeavyReadBudget } from '../heavy-reads/heavy-read-budget.js';
import { HEAVY_READ_DB } from '../heavy-reads/heavy-read-db.provider.js';
import { GraphQLLoaders } from '../graphql-context/loaders.js';

/**
 * GraphQL at /graphql (code-first, Apollo). Every request gets its own DataLoaders, so batching never
 * mixes two callers' data. Authentication and scopes are the REST ones, applied to the root fields; the rate limit
 * is charged per operation by its computed cost (graphql-limits.ts);
 * nested fields only ever see rows their root field already scoped to the caller's organization.
 */
@Module({
  imports: [
    AuthModule,
    ReadDbModule,
    GraphQLModule.forRootAsync<ApolloDriverConfig>({
      driver: ApolloDriver,
      imports: [AuthModule, ReadDbModule],
      inject: [ReadDb, ConfigService, Authenticator, ApiKeyRateLimitGuard, HEAVY_READ_DB, HeavyReadBudget],
      useFactory: (
        db: ReadDb,
        configService: ConfigService<ApiConfig, true>,
        authenticator: Authenticator,
        rateLimit: ApiKeyRateLimitGuard,
        heavyDb: ReadDb,
        budget: HeavyReadBudget,
      ) => {
        const config = validatedConfig(configService);
        const armor = armorProtection(config);
        return {
          path: '/graphql',
          autoSchemaFile: true,
          sortSchema: true,
          playground: false,
          introspection: config.GRAPHQL_INTROSPECTION !== 'off',
          // Apollo's default shows stack traces unless NODE_ENV is production or test: say it outright.
          includeStacktraceInErrorResponses: config.NODE_ENV === 'development',
          allowBatchedHttpRequests: false,
          parseOptions: { maxTokens: config.GRAPHQL_MAX_TOKENS },
          // Money in cents, as in REST answers.
          stringifyResult: (result: unknown) => JSON.stringify(result, moneyReplacer),
          validationRules: armor.validationRules,
          // Nest's Apollo types come from Apollo's ESM build, these from its CJS build: same shapes.
          plugins: [...armor.plugins, gatePlugin(config, authenticator, rateLimit)] as ApolloDriverConfig['plugins'],
          formatError: formatGraphQLError,
          context: ({ req, res }: { req: CallerRequest; res: ServerResponse }) => ({
            req,
            res,
            // Savings per cluster is a heavy read: the heavy-read pool, inside the caller's organization's budget.
            loaders: new GraphQLLoaders(db, {
              db: heavyDb,
              run: (work) => budget.run(req.caller?.organizationId ?? '', 'savings', work),
            }),
            // One instant per request: default windows ending "now" are equal across fields, so they batch.
            now: new Date(),
          }),
        };
      },
    }),
  ],
  // Each feature module registers its own resolvers (fleet, savings, trends, services, recommendations,
  // simulate, audit, reports): this module holds the server, its limits and the per-request context.
})
export class GraphQLApiModule {}

function validatedConfig(config: ConfigService<ApiConfig, true>) {
  const get = <K extends keyof ApiConfig>(key: K) => config.get(key, { infer: true }) as ApiConfig[K];
  return {
    NODE_ENV: get('NODE_ENV'),
    GRAPHQL_INTROSPECTION: get('GRAPHQL_INTROSPECTION'),
    GRAPHQL_MAX_DEPTH: get('GRAPHQL_MAX_DEPTH'),
    GRAPHQL_MAX_ALIASES: get('GRAPHQL_MAX_ALIASES'),
    GRAPHQL_MAX_TOKENS: get('GRAPHQL_MAX_TOKENS'),
    GRAPHQL_MAX_COST: get('GRAPHQL_MAX_COST'),
    GRAPHQL_COST_PER_REQUEST: get('GRAPHQL_COST_PER_REQUEST'),
    GRAPHQL_MAX_VARIABLES_BYTES: get('GRAPHQL_MAX_VARIABLES_BYTES'),
  };
}

/**
 * Errors thrown by nested field resolvers (which exception filters do not see) answer like the root
 * fields' do: the problem's detail as message, its fields and a GraphQL `code` as extensions. Anything
 * else that is not a GraphQL error of its own is an opaque internal error.
 */
function formatGraphQLError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  // GraphQL's own errors (syntax, validation) and those the exception filter already turned into problems.
  if (original instanceof GraphQLError) return formatted;
  const { status, body } = problemOf(original);
  if (status >= 500 && status !== 503) logInternalError(original);
  return { ...formatted, message: String(body.detail), extensions: graphQLExtensions(status, body) };
}
