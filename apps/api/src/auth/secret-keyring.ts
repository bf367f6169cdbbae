import type { Provider } from '@nestjs/common';
import { parseEnvironment, reportsEnvSchema, secretKeyringOf } from '@zw/queue';

/**
 * Injection token of the deployment's secret keyring (SECRET_ENCRYPTION_KEYS, or REPORT_WEBHOOK_ENCRYPTION_KEYS),
 * or null when neither is set: SSO client secrets and channel secrets are sealed with it.
 */
export const SECRET_KEYRING = Symbol('SECRET_KEYRING');

export const secretKeyringProvider: Provider = {
  provide: SECRET_KEYRING,
  useFactory: () => secretKeyringOf(parseEnvironment(reportsEnvSchema, process.env)),
};
