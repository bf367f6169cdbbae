import { type ApolloServerPlugin, HeaderMap } from '@apollo/server';
import { ApolloArmor } from '@escape.tech/graphql-armor';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import {
  type DocumentNode,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  type ValidationRule,
  validate,
  visit,
} from 'graphql';
import type { ServerResponse } from 'node:http';
import type { Authenticator } from '../auth/authenticator.js';
import type { CallerRequest } from '../auth/caller.js';
import type { ApiKeyRateLimitGuard } from '../auth/rate-limit.guard.js';
import type { ApiConfig } from '../config.js';
import { graphQLExtensions, logInternalError, ProblemException, problemOf } from '../problem.js';

export type GraphQLLimits = Pick<
  ApiConfig,
  | 'GRAPHQL_MAX_DEPTH'
  | 'GRAPHQL_MAX_ALIASES'
  | 'GRAPHQL_MAX_TOKENS'
  | 'GRAPHQL_MAX_COST'
  | 'GRAPHQL_COST_PER_REQUEST'
  | 'GRAPHQL_MAX_VARIABLES_BYTES'
>;

/** Cost model of graphql-armor (its defaults): an object 2, a scalar 1, ×1.5 per level, × `first`. */
const COST_MODEL = { objectCost: 2, scalarCost: 1, depthCostFactor: 1.5 };

/**
 * graphql-armor's validation rules for depth, aliases and directives: they refuse a hostile
 * document while it is validated, before anything is resolved. Field suggestions are masked so a
 * caller without introspection cannot learn the schema from typos. The cost limit is not among them:
 * armor prices `first: $n` as 1 whatever `$n` is, so the cost is computed with the variables applied
 * (gatePlugin). Fragments nested past counting never reach them (fragment-nesting.ts).
 */
export function armorProtection(limits: GraphQLLimits): {
  validationRules: ValidationRule[];
  plugins: ApolloServerPlugin[];
} {
  const armor = new ApolloArmor({
    costLimit: { enabled: false },
    maxDepth: { n: limits.GRAPHQL_MAX_DEPTH, ignoreIntrospection: true, flattenFragments: true },
    maxAliases: { n: limits.GRAPHQL_MAX_ALIASES },
    maxDirectives: { n: 20 },
    // armor's token limit throws from a plugin hook, which Apollo answers as a 500; graphql's own parser
    // option (parseOptions) refuses the same document as a 400 syntax error.
    maxTokens: { enabled: false },
    blockFieldSuggestion: { enabled: true },
  });
  const { validationRules, plugins } = armor.protect();
  return { validationRules, plugins: plugins as ApolloServerPlugin[] };
}

/** `first`/`last` given as variables, replaced by their values, so the cost counts the page size asked for. */
function withPageSizes(document: DocumentNode, variables: Record<string, unknown>): DocumentNode {
  return visit(document, {
    Argument(node) {
      if ((node.name.value !== 'first' && node.name.value !== 'last') || node.value.kind !== Kind.VARIABLE)
        return undefined;
      const value = variables[node.value.name.value];
      if (typeof value !== 'number' || !Number.isInteger(value)) return undefined;
      return { ...node, value: { kind: Kind.INT, value: String(value) } };
    },
  });
}

/**
 * The computed cost of the costliest operation of a document (armor's cost model); Infinity when it is
 * past counting (fragments spread within fragments multiply it by 1.5 a level, and a page of 0 times an
 * infinite cost is no number). The rule never refuses here (no limit): a rule that refuses throws.
 */
export function queryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> = {},
): number {
  let cost = 0;
  const rule = costLimitRule({
    ...COST_MODEL,
    maxCost: Number.POSITIVE_INFINITY,
    onAccept: [
      (_context, details: { n: number }) => (cost = Math.max(cost, Number.isNaN(details.n) ? Infinity : details.n)),
    ],
  });
  validate(schema, withPageSizes(document, variables), [rule]);
  return cost;
}

/** A cost as the answer states it: a whole number, or "more than …" when it is past exact numbers. */
function costStated(cost: number): { text: string; value: number | null } {
  if (cost <= Number.MAX_SAFE_INTEGER) return { text: String(Math.ceil(cost)), value: Math.ceil(cost) };
  return { text: `more than ${Number.MAX_SAFE_INTEGER}`, value: null };
}

/** A problem as a GraphQL request error: its HTTP status and headers, its fields as extensions. */
function requestError(exception: unknown): GraphQLError {
  const { status, body, headers } = problemOf(exception);
  if (status >= 500 && status !== 503) logInternalError(exception);
  const http = { status, headers: new HeaderMap(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) };
  return new GraphQLError(String(body.detail), { extensions: { ...graphQLExtensions(status, body), http } });
}

interface GateContext {
  req: CallerRequest;
  res: ServerResponse;
}

/**
 * Every operation, once its document is valid and before anything resolves: refuses oversized
 * variables and a cost over GRAPHQL_MAX_COST (no SQL has run yet), then authenticates the key (so
 * introspection, too, needs a valid key) and charges the cost to the key's rate limit, one request per
 * GRAPHQL_COST_PER_REQUEST (at least one).
 */
export function gatePlugin(
  limits: GraphQLLimits,
  authenticator: Authenticator,
  rateLimit: ApiKeyRateLimitGuard,
): ApolloServerPlugin<GateContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema, contextValue }) {
          try {
            const variables = request.variables ?? {};
            const variablesBytes = Buffer.byteLength(JSON.stringify(variables));
            if (variablesBytes > limits.GRAPHQL_MAX_VARIABLES_BYTES) {
              throw new ProblemException(
                413,
                `GraphQL variables are too large: ${variablesBytes} bytes, at most ${limits.GRAPHQL_MAX_VARIABLES_BYTES}`,
                { variablesBytes, maxVariablesBytes: limits.GRAPHQL_MAX_VARIABLES_BYTES },
              );
            }
            const cost = queryCost(schema, document, variables);
            if (!(cost <= limits.GRAPHQL_MAX_COST)) {
              const stated = costStated(cost);
              throw new ProblemException(
                400,
                `query too costly: its computed cost is ${stated.text}, at most ${limits.GRAPHQL_MAX_COST} (ask for fewer fields, less nesting or smaller pages)`,
                { cost: stated.value, maxCost: limits.GRAPHQL_MAX_COST },
              );
            }
            const caller = await authenticator.authenticate(contextValue.req);
            contextValue.req.caller = caller;
            const units = Math.max(1, Math.ceil(cost / limits.GRAPHQL_COST_PER_REQUEST));
            await rateLimit.chargeKey(caller.principalId, units, contextValue.res);
          } catch (exception) {
            throw requestError(exception);
          }
        },
      };
    },
  };
}
