import type { Provider } from '@nestjs/common';
import { parseEnvironment, trafficEnvSchema, trafficSourceKeyringOf } from '@zw/queue';

/** Injection token of the validated TRAFFIC_* settings (the same schema the API reads). */
export const TRAFFIC_CONFIG = Symbol('TRAFFIC_CONFIG');

/** Read when the worker module is built: a bad TRAFFIC_* value stops the worker at boot. */
export const trafficConfigProvider: Provider = {
  provide: TRAFFIC_CONFIG,
  useFactory: () => parseEnvironment(trafficEnvSchema, process.env),
};

/** Injection token of the keyring sealing traffic sources' auth headers (trafficSourceKeyringOf), or null. */
export const TRAFFIC_KEYRING = Symbol('TRAFFIC_KEYRING');

export const trafficKeyringProvider: Provider = {
  provide: TRAFFIC_KEYRING,
  useFactory: () => trafficSourceKeyringOf(process.env),
};
