import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import type { ApiKeyScope } from '@zw/db';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Who is asking: the API key that authenticated the request, and the organization it belongs to. */
export interface Caller {
  keyId: string;
  /** The key's name, as the audit log records who acted. */
  keyName: string;
  organizationId: string;
  scopes: readonly ApiKeyScope[];
}

export type CallerRequest = IncomingMessage & { caller?: Caller };

/** The HTTP request and response behind a REST handler or a GraphQL resolver. */
export function httpOf(context: ExecutionContext): { request: CallerRequest; response: ServerResponse } {
  if (context.getType<string>() === 'graphql') {
    const { req, res } = GqlExecutionContext.create(context).getContext<{
      req: CallerRequest;
      res: ServerResponse;
    }>();
    return { request: req, response: res };
  }
  const http = context.switchToHttp();
  return { request: http.getRequest<CallerRequest>(), response: http.getResponse<ServerResponse>() };
}

/** The authenticated caller (the guard has run: it is always set on guarded routes). */
export const CurrentCaller = createParamDecorator((_: unknown, context: ExecutionContext): Caller => {
  const caller = httpOf(context).request.caller;
  if (!caller) throw new Error('CurrentCaller used on a route without ApiKeyGuard');
  return caller;
});
