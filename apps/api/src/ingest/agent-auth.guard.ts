import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { type AgentIdentity, findClusterByAgentToken, PrismaService } from '@zw/db';
import type { IncomingMessage } from 'node:http';
import { ProblemException } from '../problem.js';

/**
 * Optional header by which an agent says which cluster it believes it pushes for (id or name).
 * Decision: the token alone identifies the cluster (no cluster in the URL); this header only guards
 * against a token copied into the wrong cluster's agent.
 */
export const CLUSTER_HEADER = 'x-zonewise-cluster';

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
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AgentRequest>();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match) throw unauthorized('missing agent token: send Authorization: Bearer <the cluster agent token>');
    const agent = await findClusterByAgentToken(this.prisma, match[1]);
    if (!agent) throw unauthorized('invalid agent token');
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
}
