/** Numbers as the HTML report prints them (fixed `en-US` style, so a report reads the same everywhere). */

export function formatMoney(value: number): string {
  const abs = Math.abs(value);
  const digits = abs !== 0 && abs < 10 ? 2 : 0;
  const text = abs.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `${value < 0 ? '−' : ''}$${text}`;
}

export function formatGb(value: number): string {
  const abs = Math.abs(value);
  const sign = value < 0 ? '−' : '';
  if (abs >= 1000) return `${sign}${(abs / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })} TB`;
  return `${sign}${abs.toLocaleString('en-US', { maximumFractionDigits: abs < 10 ? 2 : 0 })} GB`;
}

export function formatPercent(share: number): string {
  return `${(share * 100).toLocaleString('en-US', { maximumFractionDigits: 1 })} %`;
}

export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}
