import { number } from './format';
import type { ServiceSummary } from './types';

/** Where a Service's monthly figures come from: its traffic volume and the price per GB. */
export function inputsText(service: ServiceSummary): string {
  const inputs = service.monthly.inputs;
  return `${number(inputs.trafficGb)} GB/month (${inputs.trafficSource}${inputs.trafficNote ? `: ${inputs.trafficNote}` : ''}) × ${inputs.pricePerGb} USD/GB (${inputs.priceSource})`;
}
