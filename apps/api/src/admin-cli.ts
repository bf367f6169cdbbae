/**
 * Operator commands, and the bootstrap path of a new organization (the first admin API key can only come
 * from here; later keys can be created with POST /v1/api-keys):
 *   node dist/apps/api/admin-cli.js create-org --org acme [--org-name "Acme Corp"]
 *   node dist/apps/api/admin-cli.js create-api-key --org acme --name ops [--role viewer|operator|admin]
 *        [--expires-in 30d | --expires-at 2027-01-31T00:00:00Z]
 *   node dist/apps/api/admin-cli.js create-cluster --org acme --name prod-eu-1 [--cloud aws] [--region eu-west-1]
 *        [--kubernetes-version 1.35] [--price-per-gb 0.01] [--create-org [--org-name NAME]]
 *        (an unknown --org is refused, exit 2, unless --create-org: a typo never makes an organization)
 *   node dist/apps/api/admin-cli.js rotate-token --org acme --name prod-eu-1
 *   node dist/apps/api/admin-cli.js failed-snapshots --org acme [--cluster prod-eu-1] [--since 2026-11-24T00:00:00Z]
 *   node dist/apps/api/admin-cli.js redrive --org acme (--snapshot ID [--snapshot ID…] | --cluster NAME | --since ISO | --all)
 * Prints one JSON line; secrets (agent token, API key) are shown only here. Reads DATABASE_URL (and, for
 * redrive, REDIS_URL and QUEUE_PREFIX).
 * Every change is written to the organization's audit log as done by `admin_cli` and the OS user.
 */
import {
  agentTokenOf,
  type AuditActor,
  Cloud,
  createAuditedApiKey,
  createOrganization,
  createPrismaClient,
  dbEnvSchema,
  findCluster,
  findOrganizationBySlug,
  issueAgentToken,
  listFailedSnapshots,
  Prisma,
  type PrismaClient,
  recordAudit,
  registerCluster,
  type Role,
  ROLES,
} from '@zw/db';
import {
  bullConnection,
  closeBullConnections,
  parseEnvironment,
  queueEnvSchema,
  queueRegistration,
  SNAPSHOTS_QUEUE,
} from '@zw/queue';
import { durationProblem, KUBERNETES_VERSION_PATTERN, parseDuration } from '@zw/core';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { redriveFailedSnapshots } from './snapshots/redrive.js';

const COMMANDS = [
  'create-org',
  'create-api-key',
  'create-cluster',
  'rotate-token',
  'failed-snapshots',
  'redrive',
] as const;
/** Commands that take no --name. */
const ORGANIZATION_COMMANDS: readonly Command[] = ['create-org', 'failed-snapshots', 'redrive'];
/** Most failed snapshots `failed-snapshots` prints (newest failure first). */
const FAILED_LIST_MAX = 1000;
type Command = (typeof COMMANDS)[number];

const USAGE = [
  'usage: admin-cli create-org --org SLUG [--org-name NAME]',
  '       admin-cli create-api-key --org SLUG --name NAME [--role viewer|operator|admin] [--expires-in 30d|12h | --expires-at ISO]',
  '       admin-cli create-cluster|rotate-token --org SLUG --name NAME [--cloud aws|gcp|azure|other] [--region R]',
  '                 [--kubernetes-version V] [--price-per-gb P] [--create-org [--org-name NAME]] (create-cluster)',
  '       admin-cli failed-snapshots --org SLUG [--cluster NAME] [--since ISO]',
  '       admin-cli redrive --org SLUG (--snapshot ID [--snapshot ID ...] | --cluster NAME | --since ISO | --all)',
].join('\n');

type Values = Record<string, string | undefined>;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { positionals, values: parsed } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      'org-name': { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      scope: { type: 'string' },
      cloud: { type: 'string' },
      region: { type: 'string' },
      'kubernetes-version': { type: 'string' },
      'price-per-gb': { type: 'string' },
      'expires-in': { type: 'string' },
      'expires-at': { type: 'string' },
      cluster: { type: 'string' },
      since: { type: 'string' },
      snapshot: { type: 'string', multiple: true },
      all: { type: 'boolean' },
      'create-org': { type: 'boolean' },
    },
  });
  const { snapshot, all, 'create-org': createOrg, ...values } = parsed;
  if (createOrg && positionals[0] !== 'create-cluster')
    throw new UsageError('--create-org goes with create-cluster only (create-org makes an organization alone)');
  const [command] = positionals;
  if (!COMMANDS.includes(command as Command) || !values.org) throw new UsageError(USAGE);
  if (!ORGANIZATION_COMMANDS.includes(command as Command) && !values.name) throw new UsageError(USAGE);
  const failedSelection =
    command === 'redrive' || command === 'failed-snapshots' ? selectionOf(values, snapshot, all) : null;
  if (command === 'redrive' && !failedSelection!.named)
    throw new UsageError('redrive needs --snapshot, --cluster, --since or --all');
  if (values.cloud !== undefined && !(values.cloud in Cloud))
    throw new UsageError(`--cloud must be one of ${Object.keys(Cloud).join(', ')}`);
  if (values.role !== undefined && !(ROLES as readonly string[]).includes(values.role))
    throw new UsageError('--role must be viewer, operator or admin');
  // --scope read|admin: the older form of --role (read keys became viewers).
  if (values.scope !== undefined && values.scope !== 'read' && values.scope !== 'admin')
    throw new UsageError('--scope must be read or admin (or give --role viewer|operator|admin)');
  if (values.scope !== undefined && values.role !== undefined) throw new UsageError('give --role or --scope, not both');
  const version = values['kubernetes-version'];
  if (version !== undefined && !KUBERNETES_VERSION_PATTERN.test(version))
    throw new UsageError('--kubernetes-version must be MAJOR.MINOR, e.g. 1.31');
  const expiresAt = expiryOf(values);
  const env = parseEnvironment(dbEnvSchema, process.env);
  const prisma = createPrismaClient({ databaseUrl: env.DATABASE_URL, poolMax: 1 });
  try {
    const answer = failedSelection
      ? await runFailedSnapshots(prisma, command as 'failed-snapshots' | 'redrive', values.org, failedSelection)
      : await run(prisma, command as Exclude<Command, 'failed-snapshots' | 'redrive'>, values, expiresAt, createOrg);
    console.log(JSON.stringify(answer));
  } finally {
    await prisma.$disconnect();
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface FailedSelectionArgs {
  snapshotIds?: string[];
  clusterName?: string;
  since?: Date;
  all: boolean;
  /** Whether any selection was given at all. */
  named: boolean;
}

/** `--snapshot ID…`, `--cluster NAME`, `--since ISO`, `--all`, checked. */
function selectionOf(values: Values, snapshotIds: string[] | undefined, all = false): FailedSelectionArgs {
  const bad = snapshotIds?.find((id) => !UUID.test(id));
  if (bad !== undefined) throw new UsageError(`--snapshot must be a snapshot id (a UUID), got "${bad}"`);
  let since: Date | undefined;
  if (values.since !== undefined) {
    since = new Date(values.since);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(values.since) || Number.isNaN(since.getTime()))
      throw new UsageError('--since must be an RFC 3339 timestamp, e.g. 2026-11-24T00:00:00Z');
  }
  if (all && (snapshotIds || values.cluster !== undefined || since))
    throw new UsageError('--all re-drives every failed snapshot; leave out --snapshot, --cluster and --since');
  return {
    snapshotIds,
    clusterName: values.cluster,
    since,
    all,
    named: all || Boolean(snapshotIds || values.cluster !== undefined || since),
  };
}

/** The dead letters of an organization, or their re-drive (the same as the API's, audited as the CLI). */
async function runFailedSnapshots(
  prisma: PrismaClient,
  command: 'failed-snapshots' | 'redrive',
  org: string,
  args: FailedSelectionArgs,
): Promise<Record<string, unknown>> {
  const organization = await findOrganizationBySlug(prisma, org);
  if (!organization) throw new Error(`no organization "${org}"`);
  let clusterId: string | undefined;
  if (args.clusterName !== undefined) {
    const cluster = await findCluster(prisma, org, args.clusterName);
    if (!cluster) throw new Error(`no cluster "${args.clusterName}" in organization "${org}"`);
    clusterId = cluster.id;
  }
  const selection = { organizationId: organization.id, snapshotIds: args.snapshotIds, clusterId, since: args.since };
  if (command === 'failed-snapshots') {
    const rows = await listFailedSnapshots(prisma, selection, { limit: FAILED_LIST_MAX + 1 });
    return {
      snapshots: rows.slice(0, FAILED_LIST_MAX).map((row) => ({
        snapshotId: row.id,
        clusterId: row.clusterId,
        clusterName: row.clusterName,
        capturedAt: row.capturedAt.toISOString(),
        failedAt: row.failedAt.toISOString(),
        attempts: row.attempts,
        error: row.error,
      })),
      truncated: rows.length > FAILED_LIST_MAX,
    };
  }
  const env = parseEnvironment(queueEnvSchema, process.env);
  const { Queue } = await import('bullmq'); // only this command talks to Redis: the others start faster
  const queue = new Queue(SNAPSHOTS_QUEUE, {
    connection: bullConnection(env.REDIS_URL),
    prefix: queueRegistration(env.REDIS_URL, env.QUEUE_PREFIX, SNAPSHOTS_QUEUE).prefix,
  });
  queue.on('error', () => undefined); // an unreachable Redis is reported below, as not queued
  try {
    const retry = { attempts: env.JOB_ATTEMPTS, backoffMs: env.JOB_BACKOFF_MS };
    const outcome = await redriveFailedSnapshots(prisma, queue, { ...selection, all: args.all }, cliActor(), retry);
    return { redriven: outcome.snapshotIds.length, snapshotIds: outcome.snapshotIds, queued: outcome.queued };
  } finally {
    await queue.close();
    await closeBullConnections();
  }
}

/** `--expires-in 30d|12h|90m` or `--expires-at <RFC 3339>`: when the key stops working (null: never). */
function expiryOf(values: Values): Date | null {
  const { 'expires-in': expiresIn, 'expires-at': expiresAt } = values;
  if (expiresIn !== undefined && expiresAt !== undefined)
    throw new UsageError('give --expires-in or --expires-at, not both');
  if (expiresIn !== undefined) {
    const problem = durationProblem('--expires-in', expiresIn, { minMs: 1000 });
    if (problem) throw new UsageError(problem);
    return new Date(Date.now() + parseDuration(expiresIn)!);
  }
  if (expiresAt !== undefined) {
    const at = new Date(expiresAt);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(expiresAt) || Number.isNaN(at.getTime()))
      throw new UsageError('--expires-at must be an RFC 3339 timestamp, e.g. 2027-01-31T00:00:00Z');
    if (at.getTime() <= Date.now()) throw new UsageError('--expires-at must be in the future');
    return at;
  }
  return null;
}

/** The admin CLI acts as whoever runs it, as the operating system knows them. */
function cliActor(): AuditActor {
  let name = process.env.USER ?? 'unknown';
  try {
    name = userInfo().username;
  } catch {
    // no passwd entry (some containers): keep $USER
  }
  return { type: 'admin_cli', keyId: null, name, clientAddress: null };
}

async function run(
  prisma: PrismaClient,
  command: Exclude<Command, 'failed-snapshots' | 'redrive'>,
  values: Values,
  expiresAt: Date | null,
  createOrg = false,
): Promise<Record<string, unknown>> {
  const org = values.org!;
  const actor = cliActor();
  const createAuditedOrganization = () =>
    prisma.$transaction(async (tx) => {
      const created = await createOrganization(tx, { slug: org, name: values['org-name'] });
      await recordAudit(tx, actor, {
        organizationId: created.id,
        action: 'organization.create',
        targetType: 'organization',
        targetId: created.id,
        details: { slug: created.slug, name: created.name },
      });
      return created;
    });
  switch (command) {
    case 'create-org': {
      const organization = await createAuditedOrganization();
      return { organizationId: organization.id, slug: organization.slug, name: organization.name };
    }
    case 'create-api-key': {
      const organization = await findOrganizationBySlug(prisma, org);
      if (!organization) throw new Error(`no organization "${org}" (create it with create-org)`);
      const role = (values.role ?? (values.scope === 'admin' ? 'admin' : 'viewer')) as Role;
      const { apiKey, key } = await createAuditedApiKey(
        prisma,
        { organizationId: organization.id, name: values.name!, role, expiresAt },
        actor,
      );
      return {
        apiKeyId: apiKey.id,
        organizationId: organization.id,
        role: apiKey.role,
        expiresAt: apiKey.expiresAt?.toISOString() ?? null,
        apiKey: key,
      };
    }
    case 'create-cluster': {
      // registerCluster would make a missing organization: here only when asked, so a mistyped --org is an
      // error rather than a new, empty organization that the cluster's data then lands in.
      if (!(await findOrganizationBySlug(prisma, org))) {
        if (!createOrg)
          throw new Error(
            `no organization "${org}": create it with create-org first, or add --create-org to create it with this cluster`,
          );
        await createAuditedOrganization();
      }
      const { cluster, agentToken } = await registerCluster(
        prisma,
        {
          organizationSlug: org,
          name: values.name!,
          cloud: values.cloud as Cloud | undefined,
          region: values.region,
          kubernetesVersion: values['kubernetes-version'],
          crossZonePricePerGb: values['price-per-gb'],
        },
        actor,
      );
      return { clusterId: cluster.id, organizationId: cluster.organizationId, agentToken };
    }
    case 'rotate-token': {
      const cluster = await findCluster(prisma, org, values.name!);
      if (!cluster) throw new Error(`no cluster "${values.name}" in organization "${org}"`);
      const agentToken = await prisma.$transaction(async (tx) => {
        const token = await issueAgentToken(tx, cluster.id);
        await recordAudit(tx, actor, {
          organizationId: cluster.organizationId,
          action: 'cluster.agent_token_rotate',
          targetType: 'cluster',
          targetId: cluster.id,
          details: {
            name: cluster.name,
            tokenPrefix: (await agentTokenOf(tx, cluster.id)).tokenPrefix,
          },
        });
        return token;
      });
      return { clusterId: cluster.id, agentToken };
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
