import 'reflect-metadata';
import { ConfigService } from '@nestjs/config';
import type { ApiConfig } from './config.js';
import { createApiApp } from './http-app.js';

async function main(): Promise<void> {
  const app = await createApiApp();
  const config = app.get<ConfigService<ApiConfig, true>>(ConfigService);
  await app.listen(config.get('PORT', { infer: true }), config.get('HOST', { infer: true }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
