/**
 * Operator commands, and the bootstrap path of a new organization (the first admin API key can only come
 * from here; later keys can be created with POST /v1/api-keys):
 *   node dist/apps/api/admin-cli.js create-org --org acme [--org-name "Acme Corp"]
 *   node dist/apps/api/admin-cli.js create-api-key --org acme --name ops [--scope read|admin]
 *   node dist/apps/api/admin-cli.js create-cluster --org acme --name prod-eu-1 [--cloud aws] [--region eu-west-1]
 *        [--kubernetes-version 1.35] [--price-per-gb 0.01]
 *   node dist/apps/api/admin-cli.js rotate-token --org acme --name prod-eu-1
 * Prints one JSON line; secrets (agent token, API key) are shown only here. Reads DATABASE_URL.
 */
import {
  Cloud,
  createApiKey,
  createOrganization,
  createPrismaClient,
  dbEnvSchema,
  findCluster,
  findOrganizationBySlug,
  issueAgentToken,
  Prisma,
  type PrismaClient,
  registerCluster,
} from '@zw/db';
import { parseEnvironment } from '@zw/queue';
import { parseArgs } from 'node:util';

const COMMANDS = ['create-org', 'create-api-key', 'create-cluster', 'rotate-token'] as const;
type Command = (typeof COMMANDS)[number];

const USAGE = [
  'usage: admin-cli create-org --org SLUG [--org-name NAME]',
  '       admin-cli create-api-key --org SLUG --name NAME [--scope read|admin]',
  '       admin-cli create-cluster|rotate-token --org SLUG --name NAME [--cloud aws|gcp|azure|other] [--region R]',
  '                 [--kubernetes-version V] [--price-per-gb P]',
].join('\n');

type Values = Record<string, string | undefined>;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      'org-name': { type: 'string' },
      name: { type: 'string' },
      scope: { type: 'string' },
      cloud: { type: 'string' },
      region: { type: 'string' },
      'kubernetes-version': { type: 'string' },
      'price-per-gb': { type: 'string' },
    },
  });
  const [command] = positionals;
  if (!COMMANDS.includes(command as Command) || !values.org) throw new UsageError(USAGE);
  if (command !== 'create-org' && !values.name) throw new UsageError(USAGE);
  if (values.cloud !== undefined && !(values.cloud in Cloud))
    throw new UsageError(`--cloud must be one of ${Object.keys(Cloud).join(', ')}`);
  if (values.scope !== undefined && values.scope !== 'read' && values.scope !== 'admin')
    throw new UsageError('--scope must be read or admin');
  const env = parseEnvironment(dbEnvSchema, process.env);
  const prisma = createPrismaClient({ databaseUrl: env.DATABASE_URL, poolMax: 1 });
  try {
    console.log(JSON.stringify(await run(prisma, command as Command, values)));
  } finally {
    await prisma.$disconnect();
  }
}

async function run(prisma: PrismaClient, command: Command, values: Values): Promise<Record<string, unknown>> {
  const org = values.org!;
  switch (command) {
    case 'create-org': {
      const organization = await createOrganization(prisma, { slug: org, name: values['org-name'] });
      return { organizationId: organization.id, slug: organization.slug, name: organization.name };
    }
    case 'create-api-key': {
      const organization = await findOrganizationBySlug(prisma, org);
      if (!organization) throw new Error(`no organization "${org}" (create it with create-org)`);
      const scope = values.scope === 'admin' ? 'admin' : 'read';
      const { apiKey, key } = await createApiKey(prisma, {
        organizationId: organization.id,
        name: values.name!,
        scopes: [scope],
      });
      return { apiKeyId: apiKey.id, organizationId: organization.id, scopes: apiKey.scopes, apiKey: key };
    }
    case 'create-cluster': {
      const { cluster, agentToken } = await registerCluster(prisma, {
        organizationSlug: org,
        name: values.name!,
        cloud: values.cloud as Cloud | undefined,
        region: values.region,
        kubernetesVersion: values['kubernetes-version'],
        crossZonePricePerGb: values['price-per-gb'],
      });
      return { clusterId: cluster.id, organizationId: cluster.organizationId, agentToken };
    }
    case 'rotate-token': {
      const cluster = await findCluster(prisma, org, values.name!);
      if (!cluster) throw new Error(`no cluster "${values.name}" in organization "${org}"`);
      return { clusterId: cluster.id, agentToken: await issueAgentToken(prisma, cluster.id) };
    }
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const duplicate = error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
  const command = process.argv[2];
  console.error(
    duplicate
      ? command === 'create-org'
        ? 'an organization with this slug already exists'
        : 'that organization already has a cluster with this name'
      : error instanceof Error
        ? error.message
        : error,
  );
  process.exit(2);
});
