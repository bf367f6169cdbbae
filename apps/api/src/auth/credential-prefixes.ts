/** Shortest time between two loads of the prefixes: what a flood of bad credentials can cost Postgres. */
export const PREFIX_RELOAD_MS = 1000;
/** How old the prefixes may grow while nobody is throttled before a request reloads them (in the background). */
const REFRESH_MS = 60_000;
/** Most requests of one process waiting for the next load at once; past it, they are answered at once. */
const MAX_WAITING = 1000;

/** Whether a presented secret may be valid; if not, how soon another load could say otherwise. */
export type PrefixVerdict = { known: true } | { known: false; recheckInMs: number };

/**
 * The display prefixes (first 12 characters) of the credentials that may be valid, in this process's
 * memory, loaded on demand: a cheap first check of a presented secret. A random secret's prefix is among
 * them with a chance of about (credentials / 64^8), so a flood of guessed keys is told apart from a real
 * key without looking either up.
 *
 * Decision: loaded in the background at first use and then every minute while requests come (a known
 * prefix spares a valid credential the look at its address's count in Redis), and on demand while an
 * address is throttled, at most once a second however many requests ask. A secret whose prefix is unknown
 * there waits for the next load
 * (at most a second), so a key created a moment ago on another API process is found, not refused; the
 * same wait slows a flood of guessed keys to one answer a second per connection. Past MAX_WAITING
 * requests waiting in one process, the rest are answered at once (asked to retry in a second), so a
 * flood cannot hold unbounded memory.
 */
export class CredentialPrefixes {
  private prefixes = new Set<string>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private next: Promise<void> | undefined;
  private waiting = 0;

  constructor(
    private readonly load: () => Promise<string[]>,
    private readonly prefixOf: (secret: string) => string,
  ) {}

  /** Whether the secret's prefix was among the credentials at the last load (reloading them in the background when old). */
  known(secret: string): boolean {
    if (!this.next && Date.now() - this.loadedAt >= REFRESH_MS) void this.reload().catch(() => undefined);
    return this.prefixes.has(this.prefixOf(secret));
  }

  /** Whether the secret's prefix is among the credentials, after the next load when it was not at the last. */
  async verdict(secret: string): Promise<PrefixVerdict> {
    if (this.prefixes.has(this.prefixOf(secret))) return { known: true };
    if (this.waiting >= MAX_WAITING) return { known: false, recheckInMs: this.msUntilReload() };
    this.waiting++;
    try {
      await this.reload();
    } finally {
      this.waiting--;
    }
    return this.prefixes.has(this.prefixOf(secret)) ? { known: true } : { known: false, recheckInMs: PREFIX_RELOAD_MS };
  }

  private msUntilReload(): number {
    return Math.max(0, this.loadedAt + PREFIX_RELOAD_MS - Date.now());
  }

  /** The next load: at once when the last is a second old, else when it will be. */
  private reload(): Promise<void> {
    this.next ??= (async () => {
      const wait = this.msUntilReload();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      try {
        this.prefixes = new Set(await this.load());
      } finally {
        this.loadedAt = Date.now();
        this.next = undefined;
      }
    })();
    return this.next;
  }
}
