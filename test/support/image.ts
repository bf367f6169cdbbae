import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, posix } from 'node:path';

/**
 * The production image without a Docker engine: its Node release (the Dockerfile's NODE_VERSION, whose
 * official build scripts/ensure-services.sh fetches from the npm registry), the runtime stage's files
 * assembled by the script the Dockerfile runs, and what the lockfile says production needs.
 */
const ROOT = join(__dirname, '..', '..');

export function imageNodeVersion(): string {
  const version = /^ARG NODE_VERSION=(\S+)$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
  if (!version) throw new Error('the Dockerfile declares no ARG NODE_VERSION=<version>');
  return version;
}

/** The image's Node binary, or null (with the reason) when scripts/ensure-services.sh could not fetch it. */
export function imageNodeBinary(): { path: string; missing: string | null } {
  const version = imageNodeVersion();
  const path = join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    'zonewise',
    `node-${version}`,
    'bin',
    'node',
  );
  return existsSync(path)
    ? { path, missing: null }
    : { path, missing: `${path} is missing (scripts/ensure-services.sh fetches it): the apps run on this Node` };
}

/** Runs deploy/image/runtime-files.sh, as the Dockerfile's build stage does, from this checkout into `out`. */
export function assembleRuntimeFiles(out: string): { status: number | null; output: string } {
  const run = spawnSync('sh', [join(ROOT, 'deploy', 'image', 'runtime-files.sh'), ROOT, out], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

interface LockEntry {
  version?: string;
  link?: boolean;
  optional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
type Lock = { packages: Record<string, LockEntry> };

/** Where npm's resolution finds `name` from the package at `from` (its own node_modules, then its parents'). */
function resolveIn(lock: Lock, from: string, name: string): string | null {
  for (let base = from; ;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return null;
    const parent = base.lastIndexOf('/node_modules/');
    base = parent === -1 ? '' : base.slice(0, parent);
  }
}

/**
 * Every package production needs by the lockfile, as name@version: the closure of package.json's
 * `dependencies` over each package's dependencies, optional dependencies and required peers. `optional`
 * holds those that may be absent (another platform's prebuilt binaries).
 */
export function productionClosure(lockPath = join(ROOT, 'package-lock.json')): {
  all: Set<string>;
  optional: Set<string>;
} {
  const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as Lock;
  const all = new Set<string>();
  const optional = new Set<string>();
  const seen = new Set<string>();
  const queue: string[] = [''];
  while (queue.length) {
    const from = queue.shift()!;
    const entry = lock.packages[from]!;
    const wanted = {
      ...entry.dependencies,
      ...(from ? entry.optionalDependencies : {}),
      ...(from
        ? Object.fromEntries(
            Object.entries(entry.peerDependencies ?? {}).filter(
              ([name]) => !entry.peerDependenciesMeta?.[name]?.optional,
            ),
          )
        : {}),
    };
    for (const name of Object.keys(wanted)) {
      const found = resolveIn(lock, from, name);
      if (!found || seen.has(found)) continue;
      seen.add(found);
      const target = lock.packages[found]!;
      if (target.link) continue; // a workspace library: its files are checked apart
      all.add(`${name}@${target.version}`);
      if (target.optional) optional.add(`${name}@${target.version}`);
      queue.push(found);
    }
  }
  return { all, optional };
}

/** The packages installed under a directory's node_modules (nested ones too), as name@version. */
export function installedPackages(dir: string): Set<string> {
  const installed = new Set<string>();
  const visit = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((sub) => `${entry}/${sub}`) : [entry];
      for (const name of names) {
        const path = join(modules, name);
        if (lstatSync(path).isSymbolicLink()) continue; // a workspace library's link
        const manifest = join(path, 'package.json');
        if (!existsSync(manifest)) continue;
        installed.add(`${name}@${(JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version}`);
        visit(join(path, 'node_modules'));
      }
    }
  };
  visit(join(dir, 'node_modules'));
  return installed;
}

/** Every file under `dir` (node_modules included) with its size and modification time, to see what changed. */
export function fileStates(dir: string): Map<string, string> {
  const states = new Map<string, string>();
  const visit = (relative: string) => {
    for (const entry of readdirSync(join(dir, relative), { withFileTypes: true })) {
      const path = posix.join(relative, entry.name);
      const stat = lstatSync(join(dir, path));
      states.set(path, `${stat.size}:${stat.mtimeMs}`);
      if (entry.isDirectory()) visit(path);
    }
  };
  visit('');
  return states;
}
