import type { PrismaClient } from './generated/prisma/client.js';
import { openWithKeyring, type SecretKeyring, sealWithKeyring } from '@zw/secrets';

/**
 * Report webhooks' signing secrets at rest: sealed with the current key of REPORT_WEBHOOK_ENCRYPTION_KEYS
 * (`webhook_secret_sealed`, with the key's id in `webhook_secret_key_id`). Rows from before encryption
 * keep theirs in plain text (`webhook_secret`) until {@link resealWebhookSecrets} runs.
 */
/** The associated data a webhook secret is sealed with: it opens only as a report schedule's webhook secret. */
const WEBHOOK_SECRET_CONTEXT = 'report-schedule.webhook-secret';

export interface StoredWebhookSecret {
  webhookSecret: string | null;
  webhookSecretSealed: Uint8Array | null;
}

/** The columns that store `secret` sealed (and clear any plain-text copy). */
export function sealedWebhookSecretColumns(keyring: SecretKeyring, secret: string) {
  return {
    webhookSecret: null,
    webhookSecretSealed: sealWithKeyring(keyring, secret, WEBHOOK_SECRET_CONTEXT),
    webhookSecretKeyId: keyring.currentId,
  };
}

/** The columns of a schedule without a webhook secret. */
export const NO_WEBHOOK_SECRET = { webhookSecret: null, webhookSecretSealed: null, webhookSecretKeyId: null };

export type WebhookSecretRead = { secret: string } | { secret: null; problem: string };

/** The signing secret of a stored schedule: opened with the keyring, or a plain-text legacy one. */
export function readWebhookSecret(keyring: SecretKeyring | null, stored: StoredWebhookSecret): WebhookSecretRead {
  if (stored.webhookSecretSealed) {
    const opened = keyring ? openWithKeyring(keyring, stored.webhookSecretSealed, WEBHOOK_SECRET_CONTEXT) : null;
    if (opened !== null) return { secret: opened };
    return {
      secret: null,
      problem:
        'the webhook secret cannot be decrypted (the secret keyring is missing the key it was sealed with): restore that key, or rotate the secret',
    };
  }
  if (stored.webhookSecret) return { secret: stored.webhookSecret };
  return { secret: null, problem: 'the schedule has no webhook secret' };
}

/**
 * Seals every plain-text secret, and re-seals every secret sealed under a key other than the current one
 * (after a rotation), in batches; secrets whose key is gone are left as they are. Returns how many rows
 * changed. Safe to run from several processes at once: each row's update checks it is unchanged.
 */
export async function resealWebhookSecrets(db: PrismaClient, keyring: SecretKeyring, batch = 200): Promise<number> {
  let changed = 0;
  let afterId: string | undefined;
  for (;;) {
    const rows = await db.reportSchedule.findMany({
      where: {
        ...(afterId ? { id: { gt: afterId } } : {}),
        OR: [
          { webhookSecret: { not: null } },
          { webhookSecretSealed: { not: null }, NOT: { webhookSecretKeyId: keyring.currentId } },
        ],
      },
      select: { id: true, webhookSecret: true, webhookSecretSealed: true, webhookSecretKeyId: true },
      orderBy: { id: 'asc' },
      take: batch,
    });
    if (rows.length === 0) return changed;
    for (const row of rows) {
      const read = readWebhookSecret(keyring, row);
      if (read.secret === null) continue;
      const { count } = await db.reportSchedule.updateMany({
        where: { id: row.id, webhookSecret: row.webhookSecret, webhookSecretKeyId: row.webhookSecretKeyId },
        data: sealedWebhookSecretColumns(keyring, read.secret),
      });
      changed += count;
    }
    afterId = rows[rows.length - 1].id;
  }
}
