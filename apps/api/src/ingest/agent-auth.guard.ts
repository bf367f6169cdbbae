import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import {
  type AgentIdentity,
  agentTokenPrefixes,
  agentTokenPrefixOf,
  clusterNameOf,
  findClusterByAgentToken,
  PrismaService,
} from '@zw/db';
import type { IncomingMessage } from 'node:http';
import { CredentialPrefixes } from '../auth/credential-prefixes.js';
import { clientAddressOf, UnauthenticatedThrottle } from '../auth/unauthenticated-throttle.js';
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
  /**
   * The prefixes of every cluster's token: a token that may be valid is looked up even from an address
   * throttled for refused credentials, so a fleet pushing from one NAT address keeps working while
   * someone else at that address presents bad tokens (on whichever API replica its pushes land).
   */
  private readonly prefixes: CredentialPrefixes;

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(UnauthenticatedThrottle) private readonly throttle: UnauthenticatedThrottle,
  ) {
    this.prefixes = new CredentialPrefixes(() => agentTokenPrefixes(prisma), agentTokenPrefixOf);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AgentRequest>();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const credential = match ? { secret: match[1], prefixes: this.prefixes } : null;
    // A refused token counts against the client's address; past its budget, only tokens that may be valid are looked up.
    const agent = await this.throttle.guard(clientAddressOf(request), credential, async () => {
      if (!match) throw unauthorized('missing agent token: send Authorization: Bearer <the cluster agent token>');
      const found = await findClusterByAgentToken(this.prisma, match[1]);
      if (!found) throw unauthorized('invalid agent token');
      return found;
    });
    const claimed = request.headers[CLUSTER_HEADER];
    if (typeof claimed === 'string' && claimed !== agent.clusterId) {
      if (claimed !== (await clusterNameOf(this.prisma, agent.clusterId))) {
        throw new ProblemException(403, `this agent token belongs to another cluster than "${claimed}"`);
      }
    }
    request.agent = agent;
    return true;
  }
}
