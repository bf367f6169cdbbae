import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { PrismaService } from '@zw/db';
import { z } from 'zod';
import { ApiResponseFrom } from '../http/openapi.js';
import { isoDate } from '../http/schemas.js';
import { ApiKeyAuth } from './auth.decorators.js';
import { type Caller, CurrentCaller } from './caller.js';

const MeSchema = z.object({
  organization: z.object({ id: z.uuid(), slug: z.string(), name: z.string() }),
  apiKey: z.object({
    id: z.uuid(),
    name: z.string(),
    scopes: z.array(z.enum(['read', 'admin'])).describe('`admin` keys may also change clusters, keys and schedules'),
    expiresAt: isoDate.nullable(),
  }),
});

/** Who the key is: a client (the dashboard) shows what the key may do, and hides what it may not. */
@ApiTags('api-keys')
@ApiKeyAuth()
@Controller('v1/me')
export class MeController {
  constructor(@Inject(PrismaService) private readonly prisma: PrismaService) {}

  @Get()
  @ApiOperation({ summary: 'The calling API key: its organization, name, scopes and expiry (never its secret)' })
  @ApiResponseFrom(200, MeSchema, 'the calling key')
  async me(@CurrentCaller() caller: Caller): Promise<z.output<typeof MeSchema>> {
    const key = await this.prisma.apiKey.findUniqueOrThrow({
      where: { id: caller.keyId },
      select: { expiresAt: true, organization: { select: { id: true, slug: true, name: true } } },
    });
    return {
      organization: key.organization,
      apiKey: {
        id: caller.keyId,
        name: caller.keyName,
        scopes: [...caller.scopes],
        expiresAt: key.expiresAt?.toISOString() ?? null,
      },
    };
  }
}
