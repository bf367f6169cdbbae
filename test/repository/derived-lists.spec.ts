import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_PLANE_NAMES } from '@zw/core';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..');

/**
 * Lists kept by hand in prose, checked against their one source (CONTRIBUTING.md's recipes name them):
 * a data plane added to DATA_PLANE_NAMES fails here until every page that lists the names has it.
 */
describe('lists derived by hand are complete', () => {
  const pages = ['docs/kubernetes-versions-and-data-planes.md', 'docs/cli.md', 'docs/query-api.md'];
  for (const page of pages) {
    it(`${page} names every data plane`, () => {
      const text = readFileSync(join(ROOT, page), 'utf8');
      expect(DATA_PLANE_NAMES.filter((name) => !text.includes(`\`${name}\``))).toEqual([]);
    });
  }
});
