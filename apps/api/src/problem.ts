import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';

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

export function problemBody(status: number, detail: string, extensions: Record<string, unknown> = {}) {
  return { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail, ...extensions };
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
    const headers = exception instanceof ProblemException ? exception.headers : {};
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    response.statusCode = status;
    response.setHeader('Content-Type', 'application/problem+json');
    response.end(JSON.stringify(problem));
  }
}
