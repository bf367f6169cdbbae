import type { Provider } from '@nestjs/common';
import { parseEnvironment, reportsEnvSchema } from '@zw/queue';

/** Injection token of the validated reports settings (REPORT_* variables, shared with the worker). */
export const REPORTS_CONFIG = Symbol('REPORTS_CONFIG');

/** Reads the REPORT_* environment once, when the module is built: a bad value stops the API at boot. */
export const reportsConfigProvider: Provider = {
  provide: REPORTS_CONFIG,
  useFactory: () => parseEnvironment(reportsEnvSchema, process.env),
};
