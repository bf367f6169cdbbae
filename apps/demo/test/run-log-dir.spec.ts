import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunLogDir, DEMO_LOG_ROOT } from '../src/run-log-dir.js';

const root = mkdtempSync(join(tmpdir(), 'zw-demo-logs-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('each demo run logs into its own folder', () => {
  it('lives under $TMPDIR/zonewise-demo by default', () => {
    expect(DEMO_LOG_ROOT).toBe(join(tmpdir(), 'zonewise-demo'));
  });

  it('names the folder after the start time (UTC, sortable) and creates it', () => {
    const dir = createRunLogDir(root, new Date('2026-03-04T05:06:07.890Z'));
    expect(dirname(dir)).toBe(root);
    expect(basename(dir)).toMatch(/^20260304T050607Z-\w{6}$/);
    expect(statSync(dir).isDirectory()).toBe(true);
  });

  it('gives two runs started in the same second different folders, so their logs never mix', () => {
    const startedAt = new Date('2026-03-04T05:06:08Z');
    const first = createRunLogDir(root, startedAt);
    const second = createRunLogDir(root, startedAt);
    expect(first).not.toBe(second);
    appendFileSync(join(first, 'api.log'), 'first run\n');
    appendFileSync(join(second, 'api.log'), 'second run\n');
    expect(readFileSync(join(first, 'api.log'), 'utf8')).toBe('first run\n');
    expect(readFileSync(join(second, 'api.log'), 'utf8')).toBe('second run\n');
    expect(readdirSync(root).filter((name) => name.startsWith('20260304T050608Z-'))).toHaveLength(2);
  });
});
