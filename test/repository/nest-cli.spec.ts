import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * nest-cli.json (Nest's monorepo mode, for `nest start <app> --watch`) names each app's real entry file
 * and tsconfig, and compiles to the same place `tsc -b` does, so `npm run start:<app>` and `nest start
 * <app>` run the same files.
 */
const ROOT = join(__dirname, '..', '..');
const readJson = <T>(path: string): T => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as T;

interface NestProject {
  type: string;
  root: string;
  entryFile: string;
  sourceRoot: string;
  compilerOptions: { tsConfigPath: string };
}
const nest = readJson<{
  monorepo: boolean;
  root: string;
  compilerOptions: { builder: string; tsConfigPath: string };
  projects: Record<string, NestProject>;
}>('nest-cli.json');
const scripts = readJson<{ scripts: Record<string, string> }>('package.json').scripts;

describe('nest-cli.json', () => {
  it('is in monorepo mode with the tsc builder, the API as its default project', () => {
    expect(nest.monorepo).toBe(true);
    expect(nest.compilerOptions.builder).toBe('tsc');
    expect(nest.root).toBe(nest.projects.api!.root);
    expect(nest.compilerOptions.tsConfigPath).toBe(nest.projects.api!.compilerOptions.tsConfigPath);
  });

  it('lists exactly the Nest-started apps: api, worker, agent', () => {
    expect(Object.keys(nest.projects).sort()).toEqual(['agent', 'api', 'worker']);
  });

  it.each(['api', 'worker', 'agent'])('%s: entry file, source root and tsconfig are the real ones', (app) => {
    const project = nest.projects[app]!;
    expect(project.type).toBe('application');
    expect(project.root).toBe(`apps/${app}`);
    expect(existsSync(join(ROOT, project.sourceRoot, `${project.entryFile}.ts`))).toBe(true);
    const tsconfigPath = project.compilerOptions.tsConfigPath;
    expect(tsconfigPath).toBe(`apps/${app}/tsconfig.json`);
    const tsconfig = readJson<{ compilerOptions: { rootDir: string; outDir: string } }>(tsconfigPath);
    const appDir = join(ROOT, project.root);
    expect(resolve(appDir, tsconfig.compilerOptions.rootDir)).toBe(join(ROOT, project.sourceRoot));
    // nest start runs <outDir>/<entryFile>.js: the file `npm run start:<app>` runs after `tsc -b`.
    const compiledEntry = join(resolve(appDir, tsconfig.compilerOptions.outDir), `${project.entryFile}.js`);
    expect(compiledEntry).toBe(join(ROOT, 'dist', 'apps', app, 'main.js'));
    expect(scripts[`start:${app}`]).toBe(`node dist/apps/${app}/main.js`);
  });

  it('the tsc -b build still covers every app (nest-cli.json is for development only)', () => {
    expect(scripts.build.split(' && ')[0]).toBe('tsc -b');
    const references = readJson<{ references: { path: string }[] }>('tsconfig.json').references.map((ref) => ref.path);
    for (const app of Object.keys(nest.projects)) expect(references).toContain(`apps/${app}`);
  });
});
