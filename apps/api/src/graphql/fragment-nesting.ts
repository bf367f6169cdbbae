import { type DocumentNode, Kind, parse, type SelectionSetNode } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GRAPHQL_PATH } from './graphql-get.middleware.js';

/** The fragments an operation or fragment spreads directly, wherever in its selections (no recursion). */
function spreadsIn(selectionSet: SelectionSetNode): Set<string> {
  const names = new Set<string>();
  const pending: SelectionSetNode[] = [selectionSet];
  for (let set = pending.pop(); set; set = pending.pop()) {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) names.add(selection.name.value);
      else if (selection.selectionSet) pending.push(selection.selectionSet);
    }
  }
  return names;
}

/**
 * How deep fragment spreads nest in a document: an operation spreading F0, which spreads F1, which
 * spreads F2 … is as deep as that chain. Computed without recursion and each fragment once (a spread of
 * an unknown fragment, or one closing a cycle, ends its chain: graphql's own rules name those), so a chain
 * of 10,000 fragments, or a bomb spreading each fragment twice into the next, costs one pass.
 */
export function fragmentNesting(document: DocumentNode): number {
  const fragments = new Map<string, Set<string>>();
  const roots: Set<string>[] = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, spreadsIn(definition.selectionSet));
    } else if (definition.kind === Kind.OPERATION_DEFINITION) {
      roots.push(spreadsIn(definition.selectionSet));
    }
  }
  const longest = new Map<string, number>(); // of a finished fragment: the longest chain starting at it
  const entered = new Set<string>();
  const longestFrom = (name: string): number => longest.get(name) ?? 0;
  const stack: { name: string; children: Iterator<string> }[] = [];
  const enter = (name: string) => {
    if (entered.has(name) || !fragments.has(name)) return;
    entered.add(name);
    stack.push({ name, children: fragments.get(name)!.values() });
  };
  let deepest = 0;
  for (const root of roots) {
    for (const name of root) {
      enter(name);
      while (stack.length > 0) {
        const top = stack[stack.length - 1];
        const child = top.children.next();
        if (!child.done) {
          enter(child.value);
          continue;
        }
        let below = 0;
        for (const spread of fragments.get(top.name)!) below = Math.max(below, longestFrom(spread));
        longest.set(top.name, below + 1);
        stack.pop();
      }
      deepest = Math.max(deepest, longestFrom(name));
    }
  }
  return deepest;
}

/** The `query` of a parsed GraphQL request body, when it has one. */
function queryOf(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const query = (body as { query?: unknown }).query;
  return typeof query === 'string' ? query : null;
}

/** Spreads (and inline fragments) the text can hold at most: each is a `...` token. */
function spreadTokens(query: string): number {
  let count = 0;
  for (let at = query.indexOf('...'); at !== -1; at = query.indexOf('...', at + 3)) count++;
  return count;
}

/**
 * Express middleware, after the JSON body parser and before Apollo: refuses (400, naming the limit) a
 * GraphQL document whose fragment spreads nest deeper than `maxNesting`.
 *
 * Why before Apollo rather than as a validation rule: graphql's own rules (NoFragmentCycles,
 * OverlappingFieldsCanBeMerged) and armor's walk fragment chains recursively, and a chain of 10,000
 * fragments overflows the stack in them; a rule can stop the others only by throwing, which Apollo answers
 * as a 500. No client nests fragments dozens deep. The document is parsed here a second time only when it
 * holds more `...` than the limit, which no query of the dashboard does.
 */
export function fragmentNestingLimit(maxNesting: number, maxTokens: number) {
  return (request: IncomingMessage & { body?: unknown }, response: ServerResponse, next: () => void): void => {
    const query =
      request.method === 'POST' && request.url?.split('?')[0] === GRAPHQL_PATH ? queryOf(request.body) : null;
    if (query === null || spreadTokens(query) <= maxNesting) return next();
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens });
    } catch {
      return next(); // Apollo parses it again and answers its syntax error
    }
    const nesting = fragmentNesting(document);
    if (nesting <= maxNesting) return next();
    response.statusCode = 400;
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.end(
      JSON.stringify({
        errors: [
          {
            message: `fragments nested too deep: a chain of ${nesting} fragment spreads, at most ${maxNesting} (GRAPHQL_MAX_DEPTH)`,
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED', fragmentNesting: nesting, maxFragmentNesting: maxNesting },
          },
        ],
      }),
    );
  };
}
