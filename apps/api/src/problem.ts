import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { GraphQLError } from 'graphql';
import type { ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { OUTAGE_RETRY_AFTER_SECONDS, outageDetail, unavailableDependency } from './http/dependency-outage.js';
import { currentRequestId } from './http/request-id.js';
import type { Problem } from './http/schemas.js';

/**
 * An RFC 9457 problem: what went wrong, as `application/problem+json`. `extensions` carry machine-readable
 * details such as the JSON `path` of an invalid snapshot field.
 */
export class ProblemException extends HttpException {
  constructor(
    status: number,
    readonly detail: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail, status);
  }
}

export function problemBody(status: number, detail: string, extensions: Record<string, unknown> = {}): Problem {
  return { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, ...extensions };
}

/** Answers a problem (as problem+json) on a raw response: for filters, and middleware outside Nest's routing. */
export function writeProblem(
  response: ServerResponse,
  status: number,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): void {
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  response.statusCode = status;
  response.setHeader('Content-Type', 'application/problem+json');
  response.end(JSON.stringify(body));
}

/** Writes every HttpException of the routes it guards as problem+json. */
@Catch(HttpException)
export class ProblemFilter implements ExceptionFilter {
  catch(exception: HttpException, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<ServerResponse>();
    const status = exception.getStatus();
    const problem =
      exception instanceof ProblemException
        ? problemBody(status, exception.detail, exception.extensions)
        : problemBody(status, exception.message);
    writeProblem(response, status, problem, exception instanceof ProblemException ? exception.headers : {});
  }
}

/** One invalid input: where it was (`query`, `path`, `body`), which field (a dotted path) and what is wrong. */
export interface FieldError {
  location: 'query' | 'path' | 'body' | 'header';
  field: string;
  message: string;
}

/** 400 naming every invalid field, the first in the detail sentence. */
export function validationProblem(errors: FieldError[]): ProblemException {
  const [first] = errors;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  const where = first.location === 'body' ? 'body field' : `${first.location} parameter`;
  const name = first.field === '' ? (first.location === 'body' ? 'body' : first.location) : `${where} "${first.field}"`;
  return new ProblemException(400, `${name}: ${first.message}${more}`, { errors });
}

export function notFound(detail: string): ProblemException {
  return new ProblemException(404, detail);
}

/** Every route's answer for a cluster id the caller's organization does not have (another's included). */
export function clusterNotFound(id: string): ProblemException {
  return notFound(`no cluster ${id} in your organization`);
}

/** Errors thrown by libraries (body-parser) carry their HTTP status this way. */
interface StatusError {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
  type?: unknown;
}

function statusOf(exception: unknown): number | null {
  if (typeof exception !== 'object' || exception === null) return null;
  const { status, statusCode } = exception as StatusError;
  const code = typeof status === 'number' ? status : typeof statusCode === 'number' ? statusCode : null;
  return code !== null && code >= 400 && code < 500 ? code : null;
}

/** The problem an exception answers with: its own for ours, the library's 4xx, else an opaque 500. */
export function problemOf(exception: unknown): {
  status: number;
  body: Problem;
  headers: Record<string, string>;
} {
  if (exception instanceof ProblemException) {
    const status = exception.getStatus();
    return { status, body: problemBody(status, exception.detail, exception.extensions), headers: exception.headers };
  }
  const dependency = unavailableDependency(exception);
  if (dependency !== null) {
    return {
      status: 503,
      body: problemBody(503, outageDetail(dependency), { dependency, retryAfterSeconds: OUTAGE_RETRY_AFTER_SECONDS }),
      headers: { 'Retry-After': String(OUTAGE_RETRY_AFTER_SECONDS) },
    };
  }
  // Nest wraps body-parser's errors (bad JSON, too large) in an HttpException whose cause is the original.
  const cause = exception instanceof HttpException ? exception.cause : exception;
  const libraryStatus = statusOf(cause);
  if (libraryStatus !== null) {
    const { message, type } = cause as StatusError;
    const detail =
      type === 'entity.parse.failed'
        ? `body is not valid JSON: ${String(message)}`
        : type === 'entity.too.large'
          ? 'request body is too large'
          : String(message ?? STATUS_CODES[libraryStatus]);
    return { status: libraryStatus, body: problemBody(libraryStatus, detail), headers: {} };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    return { status, body: problemBody(status, exception.message), headers: {} };
  }
  return internalProblem();
}

/** An unexpected error's answer: nothing of it, but the request id its log line carries (logInternalError). */
function internalProblem(): { status: number; body: Problem; headers: Record<string, string> } {
  const requestId = currentRequestId();
  if (requestId === undefined) {
    return { status: 500, body: problemBody(500, 'internal error; it has been logged'), headers: {} };
  }
  const detail = `internal error; it has been logged with request id ${requestId}`;
  return { status: 500, body: problemBody(500, detail, { requestId }), headers: {} };
}

const internalErrors = new Logger('InternalError');

/** Logs an error that answers 500, with the id of the request it broke (the answer carries the same id). */
export function logInternalError(exception: unknown): void {
  const what = exception instanceof Error ? (exception.stack ?? exception.message) : String(exception);
  internalErrors.error(`request ${currentRequestId() ?? '(none)'}: ${what}`);
}

const GRAPHQL_CODES: Record<number, string> = {
  400: 'BAD_USER_INPUT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

/** A problem as GraphQL error extensions: its fields, plus a `code` GraphQL clients know. */
export function graphQLExtensions(status: number, body: Record<string, unknown>): Record<string, unknown> {
  return { ...body, code: GRAPHQL_CODES[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST') };
}

/**
 * Every error of every route, HTTP or GraphQL. HTTP answers are problem+json; in GraphQL the problem's
 * fields become the error's `extensions` (with a `code` GraphQL clients know), since a GraphQL answer
 * carries its errors in the body.
 */
@Catch()
export class AllProblemsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Problems');

  catch(exception: unknown, host: ArgumentsHost): unknown {
    const { status, body, headers } = problemOf(exception);
    if (status === 503) this.logger.warn(String(body.detail));
    else if (status >= 500) logInternalError(exception);
    if (host.getType<string>() === 'graphql') {
      if (exception instanceof GraphQLError) return exception;
      return new GraphQLError(String(body.detail), { extensions: graphQLExtensions(status, body) });
    }
    const response = host.switchToHttp().getResponse<ServerResponse>();
    if (response.headersSent) return undefined;
    writeProblem(response, status, body, headers);
    return undefined;
  }
}
