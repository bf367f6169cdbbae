import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { PrismaService, resealWebhookSecrets } from '@zw/db';
import { type ReportsConfig, secretKeyringOf } from '@zw/queue';
import type { SecretKeyring } from '@zw/secrets';
import { REPORTS_CONFIG } from './reports-worker.config.js';

/**
 * The deployment's secret keyring (SECRET_ENCRYPTION_KEYS, or its older name REPORT_WEBHOOK_ENCRYPTION_KEYS),
 * and its upkeep: at start the worker encrypts every webhook
 * secret still stored in plain text (from before encryption) and re-encrypts those sealed under an older
 * key with the current one, so an old key can be dropped from the setting once a worker has started.
 */
@Injectable()
export class WebhookSecretKeys implements OnApplicationBootstrap {
  private readonly logger = new Logger('WebhookSecrets');
  readonly keyring: SecretKeyring | null;

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(REPORTS_CONFIG) config: ReportsConfig,
  ) {
    this.keyring = secretKeyringOf(config);
  }

  onApplicationBootstrap(): void {
    if (!this.keyring) return;
    // In the background: a database outage at start must not stop the worker; the next start retries.
    void this.reseal(this.keyring);
  }

  /** Seals plain-text secrets and re-seals those under older keys; returns how many changed. */
  async reseal(keyring: SecretKeyring): Promise<number> {
    try {
      const changed = await resealWebhookSecrets(this.prisma, keyring);
      if (changed > 0) this.logger.log(`encrypted ${changed} webhook secret(s) with key "${keyring.currentId}"`);
      return changed;
    } catch (error) {
      this.logger.warn(`could not re-encrypt webhook secrets (the next start will): ${String(error)}`);
      return 0;
    }
  }
}
