/**
 * Which webhook URLs and addresses a deployment may POST reports to. A webhook is a tenant-chosen URL
 * the worker calls from inside the deployment, so by default only https to public addresses is allowed:
 * never loopback, private, link-local (cloud metadata at 169.254.169.254), shared, multicast or reserved
 * ranges (SSRF). Development and tests may allow them (REPORT_WEBHOOK_ALLOW_PRIVATE).
 */
import { BlockList, isIP } from 'node:net';

const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/** True for an address a webhook must not reach unless private networks are allowed. */
export function isForbiddenWebhookAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return FORBIDDEN.check(mapped[1], 'ipv4');
  return FORBIDDEN.check(address, 'ipv6');
}

/** Why a webhook URL is refused, or null when it is acceptable. */
export function webhookUrlProblem(text: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    return allowPrivate ? 'must be an http or https URL' : 'must be an https URL';
  }
  if (url.username || url.password) return 'must not carry credentials (sign requests with the webhook secret instead)';
  if (url.hash) return 'must not have a #fragment';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate) {
    if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point at this deployment (localhost)';
    if (isIP(host) !== 0 && isForbiddenWebhookAddress(host)) return `must reach a public address, not ${host}`;
  }
  return null;
}

/**
 * Why a tenant-given URL the backend calls is refused, or null: the same SSRF policy for every such URL
 * (report webhooks, Prometheus traffic sources).
 */
export const outboundUrlProblem: (text: string, allowPrivate: boolean) => string | null = webhookUrlProblem;
