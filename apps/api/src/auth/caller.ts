import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import type { Role } from '@zw/db';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How a caller proved who it is: an API key, a dashboard session (signed in through SSO), or a bearer token of the organization's identity provider. */
export type CallerVia = 'api_key' | 'sso' | 'bearer_token';

/** Who is asking, the organization they act in, and the role they act with. */
export interface Caller {
  /** One string per principal, for per-caller limits: `key:<id>`, `user:<id>` or `token:<issuer> <subject>`. */
  principalId: string;
  via: CallerVia;
  organizationId: string;
  role: Role;
  /** The API key (via api_key); null otherwise. */
  keyId: string | null;
  /** The identity provider's `sub` (via sso and bearer_token). */
  subject: string | null;
  email: string | null;
  /** What the audit log and the dashboard call the caller: the key's name, the person's name or email, the token's subject. */
  name: string;
  /** When these credentials stop working (the key's expiry, the session's end, the token's `exp`); null: never. */
  expiresAt: Date | null;
  /** The dashboard session (via sso); null otherwise. */
  sessionId: string | null;
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
