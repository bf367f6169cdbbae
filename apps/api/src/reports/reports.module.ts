import { Module } from '@nestjs/common';
import { registerQueues } from '../queues.js';
import { REPORTS_QUEUE } from '@zw/queue';
import { AuthModule } from '../auth/auth.module.js';
import { QueueAvailabilityModule } from '../http/queue-availability.module.js';
import { ReportSchedulesController } from './report-schedules.controller.js';
import { ReportSchedulesService } from './report-schedules.service.js';
import { reportsConfigProvider } from './reports-config.js';
import { ReportsController } from './reports.controller.js';
import { ReportsResolver } from './reports.resolver.js';
import { ReportsService } from './reports.service.js';

/**
 * Scheduled cost-savings reports: schedules (REST and GraphQL), the reports they made, downloads. The
 * API only writes Postgres and asks the worker (through the reports queue) to make reports and to sync
 * its job schedulers; the worker does the rest.
 */
@Module({
  imports: [AuthModule, QueueAvailabilityModule, registerQueues(REPORTS_QUEUE)],
  controllers: [ReportSchedulesController, ReportsController],
  providers: [reportsConfigProvider, ReportsService, ReportSchedulesService, ReportsResolver],
})
export class ReportsModule {}
