-- Webhook signing secrets are encrypted at rest (AES-256-GCM, a key of REPORT_WEBHOOK_ENCRYPTION_KEYS).
-- The database does not hold the key, so existing plain-text secrets (webhook_secret) are encrypted by the
-- worker when it starts with the key set, which then clears the plain-text column.
-- AlterTable
ALTER TABLE "report_schedules" ADD COLUMN     "webhook_secret_key_id" TEXT,
ADD COLUMN     "webhook_secret_sealed" BYTEA;
