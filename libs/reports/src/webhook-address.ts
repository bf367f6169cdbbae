/**
 * Which addresses and URLs the backend may call when a tenant chooses them: report webhooks and Prometheus
 * traffic sources share this one policy. Such a URL is called from inside the deployment, so by default
 * only public unicast addresses are allowed: never loopback, unspecified, private, shared, link-local
 * (cloud metadata at 169.254.169.254), site-local, multicast, documentation or reserved ranges, whatever
 * form the address is written in (SSRF). Development and tests may allow them (the ALLOW_PRIVATE settings).
 *
 * Decisions:
 * - IPv6 is allow-listed: only global unicast (2000::/3) is considered at all, minus its special ranges.
 *   Everything outside it (::/96 IPv4-compatible such as `::7f00:1`, `::ffff:0:0:0/96` IPv4-translated,
 *   NAT64 64:ff9b::/96 and 64:ff9b:1::/48, fec0::/10 site-local, fc00::/7, fe80::/10, ff00::/8, …) is
 *   refused, so an unlisted transition form cannot slip through.
 * - IPv4-mapped addresses (`::ffff:a.b.c.d`, also written `::ffff:7f00:1`) are what a dual-stack socket
 *   dials for an IPv4 destination: they are judged by the IPv4 address they carry.
 * - Transition ranges inside 2000::/3 that tunnel to an IPv4 address chosen by whoever writes it (6to4
 *   2002::/16, Teredo 2001::/32 and the rest of 2001::/23) are refused whole: a receiver on the internet
 *   has a native address.
 */
import { type Cidr, cidrContains, type IpAddress, parseCidr, tryParseIp } from '@zw/core';

const FORBIDDEN_IPV4 = [
  '0.0.0.0/8', // "this network", unspecified
  '10.0.0.0/8',
  '100.64.0.0/10', // shared address space (carrier-grade NAT)
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24',
  '192.88.99.0/24', // 6to4 relay anycast
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4', // reserved, and the broadcast address
].map(parseCidr);

const GLOBAL_UNICAST = parseCidr('2000::/3');
const IPV4_MAPPED = parseCidr('::ffff:0:0/96');

const FORBIDDEN_GLOBAL_IPV6 = [
  '2001::/23', // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4
  '3fff::/20', // documentation
  '5f00::/16', // SRv6 SIDs
].map(parseCidr);

const within = (ranges: Cidr[], ip: IpAddress) => ranges.some((range) => cidrContains(range, ip));

/** True for an address a tenant-chosen URL must not reach unless private networks are allowed. */
export function isForbiddenWebhookAddress(address: string): boolean {
  const ip = tryParseIp(address.replace(/^\[|\]$/g, ''));
  if (ip === null) return true;
  if (ip.family === 'IPv4') return within(FORBIDDEN_IPV4, ip);
  if (cidrContains(IPV4_MAPPED, ip)) return within(FORBIDDEN_IPV4, { family: 'IPv4', value: ip.value & 0xffffffffn });
  return !cidrContains(GLOBAL_UNICAST, ip) || within(FORBIDDEN_GLOBAL_IPV6, ip);
}

/** `localhost`, `localhost.` and any name under it (RFC 6761: always loopback, never asked of DNS). */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
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
  return allowPrivate ? null : hostProblem(url.hostname);
}

/**
 * Why a URL's host may not be called, or null. A name is checked again where it is dialled: the
 * addresses it resolves to are judged by {@link isForbiddenWebhookAddress} before the connection opens.
 */
export function hostProblem(hostname: string): string | null {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isLocalhostName(host)) return 'must not point at this deployment (localhost)';
  const literal = tryParseIp(host);
  if (literal !== null && isForbiddenWebhookAddress(host)) return `must reach a public address, not ${host}`;
  return null;
}

/**
 * Why a tenant-given URL the backend calls is refused, or null: the same SSRF policy for every such URL
 * (report webhooks, Prometheus traffic sources).
 */
export const outboundUrlProblem: (text: string, allowPrivate: boolean) => string | null = webhookUrlProblem;
