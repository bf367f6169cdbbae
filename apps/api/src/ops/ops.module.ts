import { Module } from '@nestjs/common';
import { ReadDbModule } from '../read-db.module.js';
import { ApiRedisModule } from '../redis.provider.js';
import { MetricsModule } from './metrics.module.js';
import { OpsController } from './ops.controller.js';

/** What operators and probes ask: health, readiness, metrics. */
@Module({ imports: [MetricsModule, ReadDbModule, ApiRedisModule], controllers: [OpsController] })
export class OpsModule {}
