import { createHash } from 'node:crypto';

/**
 * A prepared statement's name: the same text always gets the same name, another text another, in every
 * process and on every connection (pg refuses one name for two texts on a connection).
 */
export function statementNameOf(text: string): string {
  return `zw_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}
