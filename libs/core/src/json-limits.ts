/**
 * Limits every snapshot document meets, whatever its fields mean: what the analysis and the stores
 * behind it (Postgres text and jsonb columns, JSON.stringify for hashes) can always take.
 *
 * - Nesting at most {@link MAX_JSON_DEPTH} levels. JSON.parse reads any depth, but JSON.stringify and
 *   every recursive reader overflow the stack a few thousand levels down. Kubernetes objects nest about
 *   twenty levels (managedFields included), so the limit leaves a wide margin.
 * - No NUL character and no lone UTF-16 surrogate in any string or key. Postgres refuses both in text
 *   (22021) and jsonb (22P05); JSON text can only carry them as `\u0000` / `\ud800` escapes, so no real
 *   Kubernetes object contains them.
 *
 * The walk recurses at most {@link MAX_JSON_DEPTH} levels (a deeper document stops it there, so no input
 * can overflow the stack) and builds no path while all is well: only when it finds a problem does it walk
 * again to name the JSON path. Checking every string costs most of the walk, so a document parsed from
 * text ({@link jsonTextLimitProblem}) has its strings checked only when the text could hold such characters.
 */

export const MAX_JSON_DEPTH = 100;

/** Why a value breaks a limit; `path` is its JSON path (`items[3].metadata.name`, `""` for the root). */
export interface JsonLimitProblem {
  path: string;
  problem: string;
}

// eslint-disable-next-line no-control-regex -- finding NUL is the point
const SUSPECT = /[\u0000\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with one string, or null. */
function stringProblem(text: string): string | null {
  if (!SUSPECT.test(text)) return null;
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000), which no Kubernetes object holds';
  if (LONE_SURROGATE.test(text)) return 'contains a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape)';
  return null;
}

/**
 * Documents {@link jsonTextLimitProblem} found within the limits: parseSnapshot does not walk them again.
 * Callers hand them on as parsed (nothing in between writes strings into them).
 */
const checkedDocuments = new WeakSet<object>();

/**
 * The first limit a document just parsed from `text` breaks, or null. Only `\u` escapes or raw
 * surrogates in the text can make NUL or lone surrogates: without them only the depth is walked.
 */
export function jsonTextLimitProblem(document: unknown, text: string): JsonLimitProblem | null {
  const checkStrings = text.includes('\\u') || RAW_SURROGATE.test(text);
  if (breaksLimits(document, 0, MAX_JSON_DEPTH, checkStrings)) return locateProblem(document, MAX_JSON_DEPTH);
  if (typeof document === 'object' && document !== null) checkedDocuments.add(document);
  return null;
}

const RAW_SURROGATE = /[\uD800-\uDFFF]/;

/** The first limit `document` breaks, or null when it meets them all. */
export function jsonLimitProblem(document: unknown, maxDepth = MAX_JSON_DEPTH): JsonLimitProblem | null {
  if (typeof document === 'object' && document !== null && checkedDocuments.has(document)) return null;
  return breaksLimits(document, 0, maxDepth, true) ? locateProblem(document, maxDepth) : null;
}

/**
 * The fast pass: a yes/no answer, no paths. Recursion stops at `maxDepth`. Primitive children are
 * looked at in place (a call per value would double the walk's cost on a large snapshot).
 */
function breaksLimits(value: unknown, depth: number, maxDepth: number, checkStrings: boolean): boolean {
  if (typeof value === 'string') return checkStrings && badString(value);
  if (typeof value !== 'object' || value === null) return false;
  return breaksContainer(value, depth, maxDepth, checkStrings);
}

function breaksContainer(container: object, depth: number, maxDepth: number, checkStrings: boolean): boolean {
  if (depth >= maxDepth) return true;
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      if (breaksChild(container[i], depth, maxDepth, checkStrings)) return true;
    }
    return false;
  }
  for (const key in container) {
    if (checkStrings && badString(key)) return true;
    if (breaksChild((container as Record<string, unknown>)[key], depth, maxDepth, checkStrings)) return true;
  }
  return false;
}

function breaksChild(child: unknown, depth: number, maxDepth: number, checkStrings: boolean): boolean {
  if (typeof child === 'object') return child !== null && breaksContainer(child, depth + 1, maxDepth, checkStrings);
  return checkStrings && typeof child === 'string' && badString(child);
}

function badString(text: string): boolean {
  return SUSPECT.test(text) && stringProblem(text) !== null;
}

interface Visit {
  value: unknown;
  depth: number;
  path: string;
}

/** The slow pass, run only on a document known to break a limit: the same walk, in document order, with paths. */
function locateProblem(document: unknown, maxDepth: number): JsonLimitProblem | null {
  const stack: Visit[] = [{ value: document, depth: 0, path: '' }];
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = stringProblem(value);
      if (problem !== null) return { path, problem };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= maxDepth) {
      return { path, problem: `nested deeper than ${maxDepth} levels` };
    }
    const children: Visit[] = [];
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++)
        children.push({ value: value[i], depth: depth + 1, path: `${path}[${i}]` });
    } else {
      for (const key in value) {
        const childPath = memberPath(path, key);
        const problem = stringProblem(key);
        if (problem !== null) return { path: childPath, problem: `key ${problem}` };
        children.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, path: childPath });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return null;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `a.b` for plain keys, `a["x/y"]` for the others (annotation and label keys), as the parser's errors name them. */
function memberPath(parent: string, key: string): string {
  if (IDENTIFIER.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}
