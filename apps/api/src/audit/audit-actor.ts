import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AuditActor } from '@zw/db';
import { httpOf } from '../auth/caller.js';

/**
 * Who is acting, for the audit log: the authenticated API key and the client's address (Express's
 * `req.ip`, which honours the app's `trust proxy` setting; else the socket's peer).
 */
export const CurrentActor = createParamDecorator((_: unknown, context: ExecutionContext): AuditActor => {
  const request = httpOf(context).request as ReturnType<typeof httpOf>['request'] & { ip?: string };
  const caller = request.caller;
  if (!caller) throw new Error('CurrentActor used on a route without ApiKeyGuard');
  return {
    type: 'api_key',
    keyId: caller.keyId,
    name: caller.keyName,
    clientAddress: request.ip ?? request.socket?.remoteAddress ?? null,
  };
});
