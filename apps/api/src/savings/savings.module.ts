import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ReadDbModule } from '../read-db.module.js';
import { SavingsController } from './savings.controller.js';
import { SavingsService } from './savings.service.js';
import { SavingsResolver } from './savings.resolver.js';

/** Savings over a range: realised, missed, by cluster or Service (heavy reads). */
@Module({
  imports: [AuthModule, ReadDbModule],
  controllers: [SavingsController],
  providers: [SavingsService, SavingsResolver],
  exports: [SavingsService],
})
export class SavingsModule {}
