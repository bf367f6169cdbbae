export * from './generated/prisma/client.js';
export type { Db } from './db-client.js';
export { createPrismaClient, prismaClientOptions, type DbOptions } from './prisma-client.js';
export { PrismaService, DB_OPTIONS } from './prisma.service.js';
export { DbModule, type DbModuleAsyncOptions } from './db.module.js';
export {
  AGENT_TOKEN_PREFIX,
  findClusterByAgentToken,
  generateAgentToken,
  hashAgentToken,
  issueAgentToken,
  type AgentIdentity,
  type NewAgentToken,
} from './agent-tokens.js';
export { findCluster, registerCluster, type RegisterClusterInput, type RegisteredCluster } from './clusters.js';
export { clusterStateAt, serviceStateAt, serviceTimeline, type ServiceRef } from './history.js';
export { dbEnvSchema } from './environment.js';
