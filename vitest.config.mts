import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [swc.vite({ tsconfigFile: 'tsconfig.spec.json', module: { type: 'es6' } })],
  oxc: false,
  resolve: {
    alias: [{ find: /^@zw\/(.*)$/, replacement: `${import.meta.dirname}/libs/$1/src/index.ts` }],
  },
  test: {
    globals: false,
    include: ['libs/*/test/**/*.spec.ts', 'apps/*/test/**/*.spec.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
