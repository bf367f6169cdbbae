import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [swc.vite({ tsconfigFile: 'tsconfig.spec.json', module: { type: 'es6' } })],
  oxc: false,
  resolve: {
    alias: [
      { find: /^@zw\/(.*)$/, replacement: `${import.meta.dirname}/libs/$1/src/index.ts` },
      // Node loads graphql's CommonJS build for everyone (Nest, Apollo, graphql-armor and our code);
      // vite would pick its ESM build for our code: two graphql realms, whose schemas and errors
      // fail each other's instanceof checks. Tests use what production uses.
      { find: /^graphql$/, replacement: `${import.meta.dirname}/node_modules/graphql/index.js` },
    ],
  },
  test: {
    globals: false,
    include: ['libs/*/test/**/*.spec.ts', 'apps/*/test/**/*.spec.ts', 'test/repository/**/*.spec.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    // Every error answer any suite receives is checked for stack traces and server paths.
    setupFiles: ['./test/support/no-internals.ts'],
    // Tests replay hours of history in seconds, far past the back-to-back pushes an agent token may make
    // (5 by default); the suites that test the ingest limit set their own.
    env: { INGEST_RATE_LIMIT_BURST: '1000' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
