import { number } from './format';
import type { ServiceSummary } from './types';

/** Where a Service's monthly figures come from: its traffic volume and the price per GB. */
export function inputsText(service: ServiceSummary): string {
  const inputs = service.monthly.inputs;
  return `${number(inputs.trafficGb)} GB/month (${trafficOrigin(inputs)}) × ${inputs.pricePerGb} USD/GB (${inputs.priceSource})`;
}

/** The traffic's source and note; a measured volume's note already begins with its source (`measured: …`). */
function trafficOrigin(inputs: ServiceSummary['monthly']['inputs']): string {
  const note = inputs.trafficNote;
  if (!note) return inputs.trafficSource;
  return note.startsWith(`${inputs.trafficSource}:`) ? note : `${inputs.trafficSource}: ${note}`;
}
