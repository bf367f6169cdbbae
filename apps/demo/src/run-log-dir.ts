import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where every demo run keeps its folder of logs. */
export const DEMO_LOG_ROOT = join(tmpdir(), 'zonewise-demo');

/**
 * Creates this run's own log folder, `<root>/<UTC start time>-<random>`: concurrent demos never append to
 * each other's files, and the folders sort by start time. mkdtemp makes the name unique even for two runs
 * started in the same second.
 */
export function createRunLogDir(root: string = DEMO_LOG_ROOT, startedAt: Date = new Date()): string {
  mkdirSync(root, { recursive: true });
  const stamp = startedAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return mkdtempSync(join(root, `${stamp}-`));
}
