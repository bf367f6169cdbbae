import { Module } from '@nestjs/common';
import { ALERTS_QUEUE } from '@zw/queue';
import { AuthModule } from '../auth/auth.module.js';
import { QueueAvailabilityModule } from '../http/queue-availability.module.js';
import { registerQueues } from '../queues.js';
import { alertsConfigProvider } from './alerts-config.js';
import { AlertsController } from './alerts.controller.js';
import { AlertsResolver } from './alerts.graphql.js';
import { AlertsService } from './alerts.service.js';

/** Alert channels and rules (REST and GraphQL), the alerts and the delivery log; the worker evaluates and delivers. */
@Module({
  imports: [AuthModule, QueueAvailabilityModule, registerQueues(ALERTS_QUEUE)],
  controllers: [AlertsController],
  providers: [alertsConfigProvider, AlertsService, AlertsResolver],
})
export class AlertsModule {}
