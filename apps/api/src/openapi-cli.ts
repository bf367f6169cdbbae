/**
 * Prints the API's OpenAPI document (what /docs-json serves) without serving anything:
 *   node dist/apps/api/openapi-cli.js > openapi.json
 * The application is built but never started, so no database or Redis is reached; when DATABASE_URL and
 * REDIS_URL are unset, placeholders satisfy the configuration check (nothing connects to them). The
 * dashboard's build generates its API types from this document (scripts/api-types.mjs).
 */
import { createApiApp, openApiDocument } from './http-app.js';

const PLACEHOLDERS = {
  DATABASE_URL: 'postgresql://openapi@127.0.0.1:1/openapi',
  REDIS_URL: 'redis://127.0.0.1:1',
};

async function main(): Promise<void> {
  for (const [name, value] of Object.entries(PLACEHOLDERS)) process.env[name] ??= value;
  // The queue and cache clients log their failed connections to the placeholders: noise here. This
  // command's own failure is written to stderr directly (below).
  console.error = () => undefined;
  console.warn = () => undefined;
  const app = await createApiApp({ logger: ['fatal'] });
  const text = `${JSON.stringify(openApiDocument(app), null, 2)}\n`;
  await new Promise<void>((resolve, reject) =>
    process.stdout.write(text, (error) => (error ? reject(error) : resolve())),
  );
}

// The app's clients would retry their placeholder connections forever: leave once the document is written
// (not before: a pipe takes a large write in several turns of the event loop).
main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`openapi: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
