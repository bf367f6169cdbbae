import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
