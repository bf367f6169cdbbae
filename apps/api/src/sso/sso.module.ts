import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { MembersController } from './members.controller.js';
import { SignInController } from './sign-in.controller.js';
import { SignInService } from './sign-in.service.js';
import { SsoSettingsController } from './sso-settings.controller.js';

/** Single sign-on: signing people in through their organization's provider, its settings, the members. */
@Module({
  imports: [AuthModule],
  controllers: [SignInController, SsoSettingsController, MembersController],
  providers: [SignInService],
})
export class SsoModule {}
