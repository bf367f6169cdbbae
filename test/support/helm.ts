import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The real Helm binary (scripts/ensure-services.sh fetches the official build from the npm registry into
 * the user's cache), so chart tests render templates exactly as `helm install` would.
 */
export const HELM_BINARY =
  process.env.HELM_PATH ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'zonewise', 'helm-4.1.4', 'helm');

export function helmMissing(): string | null {
  return existsSync(HELM_BINARY)
    ? null
    : `${HELM_BINARY} is missing (scripts/ensure-services.sh fetches it): Helm chart tests skipped`;
}

export interface HelmRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs helm with the given values written to a values file (so strings stay strings, whatever they hold). */
export function runHelm(args: string[], values?: unknown): HelmRun {
  const dir = mkdtempSync(join(tmpdir(), 'zw-helm-'));
  try {
    const valueArgs = values === undefined ? [] : ['--values', join(dir, 'values.json')];
    if (values !== undefined) writeFileSync(join(dir, 'values.json'), JSON.stringify(values));
    const run = spawnSync(HELM_BINARY, [...args, ...valueArgs], {
      encoding: 'utf8',
      timeout: 30_000,
      // Helm keeps caches and config under these; a test never touches the user's.
      env: { ...process.env, HELM_CACHE_HOME: dir, HELM_CONFIG_HOME: dir, HELM_DATA_HOME: dir },
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
