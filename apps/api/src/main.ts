import 'reflect-metadata';
import { ConfigService } from '@nestjs/config';
import type { ApiConfig } from './config.js';
import { createApiApp } from './http-app.js';
import { MetricsServer } from './ops/metrics-server.js';

async function main(): Promise<void> {
  const app = await createApiApp();
  const config = app.get<ConfigService<ApiConfig, true>>(ConfigService);
  const port = config.get('PORT', { infer: true });
  const metricsPort = config.get('METRICS_PORT', { infer: true });
  if (metricsPort !== 0 && metricsPort === port) {
    throw new Error(`METRICS_PORT must differ from PORT (${port}): /metrics is served on its own port`);
  }
  await app.listen(port, config.get('HOST', { infer: true }));
  await app.get(MetricsServer).listen(metricsPort, config.get('METRICS_HOST', { infer: true }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
