import { ESLint } from 'eslint';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * SQL lives in libs/db repositories, each with its spec on real Postgres; apps call them. The lint rule
 * that keeps it there is checked here against every form a statement takes: Prisma's raw calls and
 * helpers, and a pg `query` handed SQL text.
 */
const ROOT = join(__dirname, '..', '..');

const RAW_SQL = [
  'await prisma.$queryRaw`SELECT 1`;',
  'await prisma.$queryRawUnsafe("SELECT 1");',
  'await tx.$executeRaw`UPDATE snapshots SET status = ${status}`;',
  'await tx.$executeRawUnsafe("DELETE FROM snapshots");',
  'const part = Prisma.sql`cluster_id = ${id}`;',
  'const column = Prisma.raw("captured_at");',
  'await db.query("SELECT organization_id FROM clusters WHERE id = $1", [id]);',
  'await db.query(`\n  WITH newest AS (SELECT 1) SELECT * FROM newest`);',
];

/**
 * Queries live in libs/db repositories too: an app does not call a Prisma model's query methods, on the
 * client or on an interactive transaction's client (the transaction stays in the app, its steps are
 * repository calls taking `tx`).
 */
const MODEL_CALLS = [
  'await prisma.cluster.findMany({ where: { organizationId: id } });',
  'await this.prisma.report.findFirst({ where: { id } });',
  'await this.prisma.alertChannel.count({ where: { id } });',
  'await prisma.snapshot.create({ data: {} });',
  'await this.prisma.report.updateMany({ where: { id }, data: {} });',
  'await this.prisma.organization.findUniqueOrThrow({ where: { id } });',
  'await this.prisma.apiKey.deleteMany({ where: { id } });',
  'await prisma.user.upsert({ where: { id }, create: {}, update: {} });',
  'await this.prisma.report.aggregate({ _max: { periodEnd: true } });',
  'await this.prisma.snapshot.groupBy({ by: ["status"] });',
  'await tx.alertRule.update({ where: { id }, data: {} });',
  'await tx.cluster.findFirst({ where: { id } });',
];

async function problems(statement: string, filePath: string): Promise<string[]> {
  const code = `import { Prisma } from '@zw/db';\ndeclare const prisma: never, tx: never, db: never;\ndeclare const id: string, status: string;\nexport async function f() {\n  ${statement}\n}\n`;
  const [result] = await new ESLint({ cwd: ROOT }).lintText(code, { filePath: join(ROOT, filePath) });
  return result.messages.filter((m) => m.message.includes('libs/db')).map((m) => m.ruleId ?? m.message);
}

describe('SQL and Prisma model calls live in libs/db', () => {
  it.each([...RAW_SQL, ...MODEL_CALLS])('lint refuses `%s` in an app', async (statement) => {
    expect(await problems(statement, 'apps/api/src/clusters/example.ts')).toHaveLength(1);
    expect(await problems(statement, 'apps/worker/src/example.ts')).toHaveLength(1);
  });

  it.each([...RAW_SQL, ...MODEL_CALLS])('lint lets libs/db hold `%s`', async (statement) => {
    expect(await problems(statement, 'libs/db/src/example.ts')).toEqual([]);
  });

  it('lets an app ask a query of anything but SQL text', async () => {
    expect(await problems('await db.query(promql);', 'apps/worker/src/example.ts')).toEqual([]);
  });

  it('exempts no file under apps (the last, the history writer, moved its SQL into libs/db)', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const files = readdirSync(join(ROOT, 'apps')).flatMap((app) =>
      readdirSync(join(ROOT, 'apps', app, 'src'), { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.tsx?$/.test(file) && !file.includes('generated'))
        .map((file) => `apps/${app}/src/${file}`),
    );
    expect(files).toContain('apps/worker/src/history/history-writer.ts');
    for (const file of files) {
      const config = (await eslint.calculateConfigForFile(join(ROOT, file))) as { rules?: Record<string, unknown> };
      expect(JSON.stringify(config.rules?.['no-restricted-properties'] ?? null), file).toContain('$queryRaw');
      expect(JSON.stringify(config.rules?.['no-restricted-syntax'] ?? null), file).toContain('(prisma|tx)');
    }
  });

  it('lets an app call repositories, on the client or in a transaction', async () => {
    for (const statement of [
      'await findCluster(prisma, "acme", "a");',
      'await this.prisma.$transaction(async () => {});',
      'await recordAudit(tx, actor, event);',
      'await this.queue.getJob(id);',
      'await this.cache.count(id);',
    ]) {
      expect(await problems(statement, 'apps/api/src/clusters/example.ts'), statement).toEqual([]);
    }
  });
});
