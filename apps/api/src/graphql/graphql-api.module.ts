import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { Module } from '@nestjs/common';
import { GraphQLModule } from '@nestjs/graphql';
import { ReadDb } from '@zw/db';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { graphQLExtensions, problemOf } from '../problem.js';
import { QueryModule } from '../query.module.js';
import { GraphQLLoaders } from './loaders.js';
import { ClusterResolver, RootResolver, ServiceResolver } from './resolvers.js';

/**
 * GraphQL at /graphql (code-first, Apollo). Every request gets its own DataLoaders, so batching never
 * mixes two callers' data. Authentication and rate limits are the REST ones, applied to the root fields;
 * nested fields only ever see rows their root field already scoped to the caller's organization.
 */
@Module({
  imports: [
    QueryModule,
    GraphQLModule.forRootAsync<ApolloDriverConfig>({
      driver: ApolloDriver,
      imports: [QueryModule],
      inject: [ReadDb],
      useFactory: (db: ReadDb) => ({
        path: '/graphql',
        autoSchemaFile: true,
        sortSchema: true,
        playground: false,
        introspection: true,
        formatError: formatGraphQLError,
        context: ({ req, res }: { req: IncomingMessage; res: ServerResponse }) => ({
          req,
          res,
          loaders: new GraphQLLoaders(db),
          // One instant per request: default windows ending "now" are equal across fields, so they batch.
          now: new Date(),
        }),
      }),
    }),
  ],
  providers: [RootResolver, ClusterResolver, ServiceResolver],
})
export class GraphQLApiModule {}

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
  return { ...formatted, message: String(body.detail), extensions: graphQLExtensions(status, body) };
}
