import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const RAW_SQL_MESSAGE = 'SQL lives in libs/db repositories (with a spec under libs/db/test); call one from the app.';
/** A statement's first word, at the start of a string or template handed to a pg `query`. */
const SQL_START = '/^\\s*(SELECT|WITH|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|TRUNCATE|LOCK)\\b/i';
const RAW_SQL_SELECTORS = [
  {
    selector: `CallExpression[callee.property.name='query'] > Literal.arguments[value=${SQL_START}]`,
    message: RAW_SQL_MESSAGE,
  },
  {
    selector: `CallExpression[callee.property.name='query'] > TemplateLiteral.arguments > TemplateElement:first-child[value.raw=${SQL_START}]`,
    message: RAW_SQL_MESSAGE,
  },
];
const MODEL_CALL_MESSAGE =
  'Queries live in libs/db repositories (with a spec under libs/db/test); call one from the app, not a Prisma model.';
/** A Prisma model's query method, called as `<client>.<model>.<method>(…)`. */
const MODEL_METHOD =
  'MemberExpression.callee[property.name=/^(find|create|update|delete|upsert|count|aggregate|groupBy)/]';
/** On the Prisma client or an interactive transaction's: `prisma.…`, `this.prisma.…` or `tx.<model>.<method>(…)`. */
const MODEL_CALLS = [
  `CallExpression > ${MODEL_METHOD} > MemberExpression.object > Identifier.object[name=/^(prisma|tx)$/]`,
  `CallExpression > ${MODEL_METHOD} > MemberExpression.object > MemberExpression.object[property.name='prisma']`,
].map((selector) => ({ selector, message: MODEL_CALL_MESSAGE }));

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'libs/db/src/generated/**',
      'apps/dashboard/src/generated/**',
      'tmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // The dashboard runs in browsers and talks to the API over HTTP only: it never imports server code.
    files: ['apps/dashboard/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/libs/**', '@zw/*', '**/apps/api/**', 'node:*'] }] },
  },
  {
    // The agent runs in customers' clusters and speaks to zonewise over HTTP only: no database, no queue.
    files: ['apps/agent/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/libs/db/**', '@zw/db', '@zw/queue', '**/apps/api/**'] }],
    },
  },
  {
    // SQL lives in libs/db repositories; apps call them (issue 28).
    files: ['apps/*/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['$queryRaw', '$queryRawUnsafe', '$executeRaw', '$executeRawUnsafe'].map((property) => ({
          property,
          message: RAW_SQL_MESSAGE,
        })),
        ...['sql', 'raw', 'join'].map((property) => ({ object: 'Prisma', property, message: RAW_SQL_MESSAGE })),
      ],
      // Queries live in libs/db repositories too: no Prisma model calls in apps, transactions included.
      'no-restricted-syntax': ['error', ...RAW_SQL_SELECTORS, ...MODEL_CALLS],
    },
  },
  {
    // One contract for answers (issue 28): every exported function and every public method of an exported
    // class (controllers, resolvers, services) declares what it returns, named by the response schemas'
    // types, so a change to an answer is a change to a declared type, not an accident of inference.
    // explicit-module-boundary-types rather than explicit-function-return-type: the latter also flags
    // private helpers and inline callbacks, whose inferred types nobody outside the file depends on.
    files: ['apps/api/src/**/*.ts'],
    rules: { '@typescript-eslint/explicit-module-boundary-types': 'error' },
  },
  {
    // Imports run one way: apps -> libs; libs never import apps.
    files: ['libs/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/apps/**'] }] },
  },
  {
    // The analysis core is a pure library: no framework, no storage, no queue, no I/O.
    files: ['libs/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: ['**/apps/**', '@nestjs/*', '@prisma/*', '@zw/db', '@zw/queue', 'bullmq', 'ioredis', 'pg'],
          paths: [
            'fs',
            'node:fs',
            'fs/promises',
            'node:fs/promises',
            'http',
            'node:http',
            'net',
            'node:net',
            'child_process',
            'node:child_process',
          ],
        },
      ],
    },
  },
  {
    files: ['bin/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
