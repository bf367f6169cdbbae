import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AuditActor } from '@zw/db';
import { type Caller, httpOf } from '../auth/caller.js';

/** The audit log's actor for a caller, seen from `clientAddress`. */
export function auditActorOf(caller: Caller, clientAddress: string | null): AuditActor {
  return {
    type: caller.via,
    keyId: caller.keyId,
    name: caller.name,
    subject: caller.subject,
    email: caller.email,
    role: caller.role,
    clientAddress,
  };
}

/**
 * Who is acting, for the audit log: the authenticated caller (key, person or program, with its role) and
 * the client's address (Express's `req.ip`, which honours the app's `trust proxy` setting; else the
 * socket's peer).
 */
export const CurrentActor = createParamDecorator((_: unknown, context: ExecutionContext): AuditActor => {
  const request = httpOf(context).request as ReturnType<typeof httpOf>['request'] & { ip?: string };
  const caller = request.caller;
  if (!caller) throw new Error('CurrentActor used on a route without ApiKeyGuard');
  return auditActorOf(caller, request.ip ?? request.socket?.remoteAddress ?? null);
});
