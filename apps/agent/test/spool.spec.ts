import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Spool } from '../src/spool.js';

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zw-agent-spool-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const body = (text: string) => Buffer.from(text);

async function contents(spool: Spool): Promise<string[]> {
  return Promise.all(spool.list().map(async (entry) => (await spool.read(entry)).toString()));
}

describe('Spool', () => {
  it('keeps the newest snapshots when the count bound is reached, on disk and in order', async () => {
    const dir = freshDir();
    const { spool } = await Spool.open(dir, { maxSnapshots: 3, maxBytes: 1 << 20 });
    const dropped = [];
    for (let i = 1; i <= 5; i++) dropped.push(...(await spool.add(at(i), body(`s${i}`))));
    expect(dropped.map((entry) => entry.capturedAt)).toEqual([at(1), at(2)]);
    expect(await contents(spool)).toEqual(['s3', 's4', 's5']);
    expect(readdirSync(dir)).toHaveLength(3);
    expect(spool.oldest()?.capturedAt).toEqual(at(3));
  });

  it('keeps the newest snapshots within the byte bound, and always the newest even if alone too big', async () => {
    const { spool } = await Spool.open(freshDir(), { maxSnapshots: 100, maxBytes: 10 });
    await spool.add(at(1), body('aaaa'));
    await spool.add(at(2), body('bbbb'));
    await spool.add(at(3), body('cccc'));
    expect(await contents(spool)).toEqual(['bbbb', 'cccc']);
    expect(spool.bytes).toBe(8);
    await spool.add(at(4), body('x'.repeat(50)));
    expect(await contents(spool)).toEqual(['x'.repeat(50)]);
  });

  it('takes over what an earlier run left, in captured-at order, without half-written files', async () => {
    const dir = freshDir();
    const first = (await Spool.open(dir, { maxSnapshots: 10, maxBytes: 1 << 20 })).spool;
    await first.add(at(7), body('seven'));
    await first.add(at(2), body('two'));
    await first.add(at(5), body('five'));
    writeFileSync(join(dir, '000000000000001-1-000001.json.gz.tmp'), 'torn write');
    writeFileSync(join(dir, 'README'), 'not a snapshot');
    const { spool, dropped } = await Spool.open(dir, { maxSnapshots: 2, maxBytes: 1 << 20 });
    expect(dropped.map((entry) => entry.capturedAt)).toEqual([at(2)]);
    expect(await contents(spool)).toEqual(['five', 'seven']);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    await spool.remove(spool.oldest()!);
    expect(await contents(spool)).toEqual(['seven']);
    expect(readdirSync(dir).filter((name) => name.endsWith('.gz'))).toHaveLength(1);
  });

  it('works in memory when no directory is given', async () => {
    const { spool } = await Spool.open(null, { maxSnapshots: 2, maxBytes: 1 << 20 });
    for (let i = 1; i <= 3; i++) await spool.add(at(i), body(`m${i}`));
    expect(spool.persistent).toBe(false);
    expect(await contents(spool)).toEqual(['m2', 'm3']);
  });
});
