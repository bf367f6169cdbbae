import type { Provider } from '@nestjs/common';
import { alertsEnvSchema, parseEnvironment } from '@zw/queue';

/** Injection token of the validated ALERT_* settings (shared with the worker). */
export const ALERTS_API_CONFIG = Symbol('ALERTS_API_CONFIG');

export const alertsConfigProvider: Provider = {
  provide: ALERTS_API_CONFIG,
  useFactory: () => parseEnvironment(alertsEnvSchema, process.env),
};
