import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { type AgentIdentity, findClusterByAgentToken, hashAgentToken, PrismaService } from '@zw/db';
import type { IncomingMessage } from 'node:http';
import { clientAddressOf, UnauthenticatedThrottle } from '../auth/unauthenticated-throttle.js';
import { ProblemException } from '../problem.js';

/**
 * Optional header by which an agent says which cluster it believes it pushes for (id or name).
 * Decision: the token alone identifies the cluster (no cluster in the URL); this header only guards
 * against a token copied into the wrong cluster's agent.
 */
export const CLUSTER_HEADER = 'x-zonewise-cluster';

const RECENTLY_VALID_MS = 3600_000;
const RECENTLY_VALID_LIMIT = 10_000;

export type AgentRequest = IncomingMessage & { agent?: AgentIdentity };

function unauthorized(detail: string): ProblemException {
  return new ProblemException(401, detail, {}, { 'WWW-Authenticate': 'Bearer realm="zonewise-ingest"' });
}

/**
 * Authenticates an agent by its cluster's token (`Authorization: Bearer zwa_…`). The token alone decides
 * the cluster; a request that also names a cluster must name the token's own, or it is refused (403), so
 * a misconfigured agent cannot silently write into the wrong cluster's history.
 */
@Injectable()
export class AgentAuthGuard implements CanActivate {
  /**
   * Tokens (by hash) that authenticated recently, with when they did. They skip the per-address throttle
   * of refused credentials, so a fleet pushing from one NAT address keeps working while someone else at
   * that address presents bad tokens. They are still looked up every time (revocation stays immediate).
   */
  private readonly recentlyValid = new Map<string, number>();

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(UnauthenticatedThrottle) private readonly throttle: UnauthenticatedThrottle,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AgentRequest>();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const tokenKey = match ? Buffer.from(hashAgentToken(match[1])).toString('base64') : null;
    const lookUp = async () => {
      if (!match) throw unauthorized('missing agent token: send Authorization: Bearer <the cluster agent token>');
      const found = await findClusterByAgentToken(this.prisma, match[1]);
      if (!found) throw unauthorized('invalid agent token');
      return found;
    };
    const seenAt = tokenKey ? this.recentlyValid.get(tokenKey) : undefined;
    // A refused token counts against the client's address; an address over its budget is not looked up.
    const agent =
      seenAt !== undefined && Date.now() - seenAt < RECENTLY_VALID_MS
        ? await lookUp()
        : await this.throttle.guard(clientAddressOf(request), lookUp);
    if (tokenKey) this.remember(tokenKey);
    const claimed = request.headers[CLUSTER_HEADER];
    if (typeof claimed === 'string' && claimed !== agent.clusterId) {
      const cluster = await this.prisma.cluster.findUnique({ where: { id: agent.clusterId }, select: { name: true } });
      if (claimed !== cluster?.name) {
        throw new ProblemException(403, `this agent token belongs to another cluster than "${claimed}"`);
      }
    }
    request.agent = agent;
    return true;
  }

  private remember(tokenKey: string): void {
    this.recentlyValid.delete(tokenKey);
    if (this.recentlyValid.size >= RECENTLY_VALID_LIMIT)
      this.recentlyValid.delete(this.recentlyValid.keys().next().value!);
    this.recentlyValid.set(tokenKey, Date.now());
  }
}
