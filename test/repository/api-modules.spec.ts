import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The API's feature folders (apps/api/src/<feature>) depend on each other one way: a folder that imports
 * another is never imported back, directly or through others, so each feature can be read, moved or
 * removed with what it depends on and nothing that depends on it.
 */
const SRC = join(__dirname, '..', '..', 'apps', 'api', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The feature folder a path is in; files at the top of src (config, problem, modules) belong to none. */
function folderOf(path: string): string | null {
  const parts = relative(SRC, path).split('/');
  return parts.length > 1 ? parts[0] : null;
}

function folderImports(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    if (!from) continue;
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const to = folderOf(normalize(join(dirname(file), specifier)));
      if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  return edges;
}

/** Every cycle found by a depth-first walk, as the folders along it. */
function cycles(edges: Map<string, Set<string>>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const walk = (folder: string, path: string[]) => {
    const at = path.indexOf(folder);
    if (at >= 0) return found.push([...path.slice(at), folder]);
    if (done.has(folder)) return;
    for (const next of edges.get(folder) ?? []) walk(next, [...path, folder]);
    done.add(folder);
  };
  for (const folder of edges.keys()) walk(folder, []);
  return found;
}

describe('the API feature folders', () => {
  it('import each other without cycles', () => {
    const edges = folderImports();
    expect(edges.size).toBeGreaterThan(10);
    expect(cycles(edges).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it('each register their controllers in a module of their own, none in the application module', () => {
    const appModule = readFileSync(join(SRC, 'app.module.ts'), 'utf8');
    expect(appModule).not.toMatch(/controllers:/);
    const controllers = sourceFiles(SRC).filter((file) => file.endsWith('.controller.ts'));
    const modules = sourceFiles(SRC).filter((file) => file.endsWith('.module.ts'));
    const registered = modules.map((file) => readFileSync(file, 'utf8')).join('\n');
    for (const file of controllers) {
      const name = /export class (\w+Controller)\b/.exec(readFileSync(file, 'utf8'))?.[1];
      expect(name, relative(SRC, file)).toBeDefined();
      expect(registered, `${name} is in no module`).toMatch(new RegExp(`controllers: \\[[^\\]]*\\b${name}\\b`));
    }
  });
});
