import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Users have only the repository: no file in it may send them to a folder outside it, and the
 * repository's own configuration must agree with its docs.
 */
const ROOT = join(__dirname, '..', '..');

function trackedTextFiles(): string[] {
  const listing = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  return listing
    .split('\0')
    .filter((path) => path !== '' && !path.endsWith('package-lock.json') && !/\.(png|ico|wasm)$/.test(path));
}

describe('the repository speaks only of itself', () => {
  it('no tracked file points at a folder outside the repository', () => {
    // The pattern is built from parts so that this file does not match itself.
    const outside = new RegExp(['\\.\\./', 'shared'].join('') + '|' + ['/work', '/'].join(''));
    const offenders = trackedTextFiles().filter((path) => outside.test(readFileSync(join(ROOT, path), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('the CLI reference the README links exists', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('(docs/cli.md)');
    expect(readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8')).toMatch(/## `zonewise analyze FILE\|-`/);
  });

  it("the README's core-module table names every module of libs/core", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('### The analysis core'));
    const listed = new Set([...table.matchAll(/`([a-z0-9-]+)`/g)].map((match) => match[1]));
    const modules = readdirSync(join(ROOT, 'libs', 'core', 'src'))
      .filter((file) => file.endsWith('.ts') && file !== 'index.ts')
      .map((file) => file.replace(/\.ts$/, ''));
    expect(modules.filter((module) => !listed.has(module))).toEqual([]);
  });
});
