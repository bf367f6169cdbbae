import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { AuditLogController } from './audit-log.controller.js';
import { AuditLogResolver } from './audit-log.resolver.js';
import { AuditLogService } from './audit-log.service.js';

/** The audit log: what admins and operators changed, and who. */
@Module({
  imports: [AuthModule],
  controllers: [AuditLogController],
  providers: [AuditLogService, AuditLogResolver],
  exports: [AuditLogService],
})
export class AuditModule {}
