import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';

/**
 * Names the analysis that produces stored Service states: a hash of the core's compiled code and of the
 * worker modules that turn its report into states (and apply the cluster's overrides to its input). A snapshot repeating its predecessor's input reuses
 * the stored states only when they were produced by the same analyzer, so after an upgrade that changes
 * results every cluster is analysed afresh once, without anyone having to remember to bump a version.
 */
export function analyzerId(): string {
  const hash = createHash('sha256');
  const coreDir = dirname(createRequire(__filename).resolve('@zw/core'));
  for (const file of codeFiles(coreDir)) hash.update(file).update(readFileSync(join(coreDir, file)));
  for (const module of ['snapshot-analysis', 'cluster-overrides', 'history/service-state']) {
    hash.update(module).update(readFileSync(join(__dirname, `${module}${extname(__filename)}`)));
  }
  return `sha256:${hash.digest('hex').slice(0, 16)}`;
}

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .sort();
}
