/**
 * Operator commands until the admin API exists:
 *   node dist/apps/api/admin-cli.js create-cluster --org acme --name prod-eu-1 [--cloud aws] [--region eu-west-1]
 *        [--kubernetes-version 1.35] [--price-per-gb 0.01]
 *   node dist/apps/api/admin-cli.js rotate-token --org acme --name prod-eu-1
 * Prints JSON with the cluster id and its agent token (shown only here). Reads DATABASE_URL.
 */
import { Cloud, createPrismaClient, Prisma, dbEnvSchema, findCluster, issueAgentToken, registerCluster } from '@zw/db';
import { parseEnvironment } from '@zw/queue';
import { parseArgs } from 'node:util';

const USAGE =
  'usage: admin-cli create-cluster|rotate-token --org SLUG --name NAME [--cloud aws|gcp|azure|other] [--region R] [--kubernetes-version V] [--price-per-gb P]';

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      name: { type: 'string' },
      cloud: { type: 'string' },
      region: { type: 'string' },
      'kubernetes-version': { type: 'string' },
      'price-per-gb': { type: 'string' },
    },
  });
  const [command] = positionals;
  if (!values.org || !values.name || (command !== 'create-cluster' && command !== 'rotate-token')) {
    throw new Error(USAGE);
  }
  if (values.cloud !== undefined && !(values.cloud in Cloud))
    throw new Error(`--cloud must be one of ${Object.keys(Cloud).join(', ')}`);
  const env = parseEnvironment(dbEnvSchema, process.env);
  const prisma = createPrismaClient({ databaseUrl: env.DATABASE_URL, poolMax: 1 });
  try {
    if (command === 'create-cluster') {
      const { cluster, agentToken } = await registerCluster(prisma, {
        organizationSlug: values.org,
        name: values.name,
        cloud: values.cloud as Cloud | undefined,
        region: values.region,
        kubernetesVersion: values['kubernetes-version'],
        crossZonePricePerGb: values['price-per-gb'],
      });
      console.log(JSON.stringify({ clusterId: cluster.id, organizationId: cluster.organizationId, agentToken }));
      return;
    }
    const cluster = await findCluster(prisma, values.org, values.name);
    if (!cluster) throw new Error(`no cluster "${values.name}" in organization "${values.org}"`);
    console.log(JSON.stringify({ clusterId: cluster.id, agentToken: await issueAgentToken(prisma, cluster.id) }));
  } finally {
    await prisma.$disconnect();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const duplicate = error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
  console.error(
    duplicate
      ? 'that organization already has a cluster with this name'
      : error instanceof Error
        ? error.message
        : error,
  );
  process.exit(2);
});
