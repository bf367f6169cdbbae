import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Snapshots waiting for the API to accept them, oldest first, on disk when a directory is given (so
 * neither an API outage nor an agent restart loses them) and in memory otherwise.
 *
 * Every snapshot is written here before its first push (write-through), so a crash or a SIGKILL loses
 * nothing that had been taken. The spool is bounded by a count and a byte size; when a new snapshot
 * does not fit, the oldest ones go: the newest state of the cluster is what matters most, and a history
 * with a gap is better than one that stops.
 */

export interface SpoolEntry {
  /** File name (or memory key); sorts in captured-at order. */
  id: string;
  capturedAt: Date;
  bytes: number;
}

export interface SpoolLimits {
  maxSnapshots: number;
  maxBytes: number;
}

const SUFFIX = '.json.gz';
const TEMP_SUFFIX = '.tmp';

export class Spool {
  private readonly entries: SpoolEntry[] = [];
  private readonly memory = new Map<string, Buffer>();
  private sequence = 0;
  private totalBytes = 0;

  private constructor(
    private readonly dir: string | null,
    private readonly limits: SpoolLimits,
  ) {}

  /** Opens (creating it if needed) a spool directory and takes over what a previous run left in it. */
  static async open(dir: string | null, limits: SpoolLimits): Promise<{ spool: Spool; dropped: SpoolEntry[] }> {
    const spool = new Spool(dir, limits);
    if (dir === null) return { spool, dropped: [] };
    await mkdir(dir, { recursive: true });
    for (const name of (await readdir(dir)).sort()) {
      const path = join(dir, name);
      if (name.endsWith(TEMP_SUFFIX)) {
        await unlink(path).catch(() => undefined); // a write that a crash interrupted
        continue;
      }
      const capturedAt = capturedAtOfName(name);
      if (capturedAt === null) continue;
      const info = await stat(path);
      spool.entries.push({ id: name, capturedAt, bytes: info.size });
      spool.totalBytes += info.size;
    }
    return { spool, dropped: await spool.enforceLimits() };
  }

  /** Adds a snapshot (its gzip body); returns the older entries dropped to make room. */
  async add(capturedAt: Date, body: Buffer): Promise<SpoolEntry[]> {
    const id = `${String(capturedAt.getTime()).padStart(15, '0')}-${process.pid}-${String(this.sequence++).padStart(6, '0')}${SUFFIX}`;
    if (this.dir === null) {
      this.memory.set(id, body);
    } else {
      const path = join(this.dir, id);
      await writeFile(path + TEMP_SUFFIX, body);
      await rename(path + TEMP_SUFFIX, path);
    }
    const entry: SpoolEntry = { id, capturedAt, bytes: body.length };
    // Keep captured-at order even if a snapshot arrives out of order (it does not, but the cost is nil).
    const index = this.entries.findIndex((existing) => existing.id > id);
    this.entries.splice(index === -1 ? this.entries.length : index, 0, entry);
    this.totalBytes += entry.bytes;
    return this.enforceLimits();
  }

  oldest(): SpoolEntry | undefined {
    return this.entries[0];
  }

  list(): readonly SpoolEntry[] {
    return this.entries;
  }

  async read(entry: SpoolEntry): Promise<Buffer> {
    if (this.dir === null) {
      const body = this.memory.get(entry.id);
      if (!body) throw new Error(`spool entry ${entry.id} is gone`);
      return body;
    }
    return readFile(join(this.dir, entry.id));
  }

  async remove(entry: SpoolEntry): Promise<void> {
    const index = this.entries.findIndex((existing) => existing.id === entry.id);
    if (index === -1) return;
    this.entries.splice(index, 1);
    this.totalBytes -= entry.bytes;
    if (this.dir === null) this.memory.delete(entry.id);
    else await unlink(join(this.dir, entry.id)).catch(() => undefined);
  }

  get size(): number {
    return this.entries.length;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  get persistent(): boolean {
    return this.dir !== null;
  }

  /** Drops the oldest entries until the spool fits; the newest entry always stays, even if alone too big. */
  private async enforceLimits(): Promise<SpoolEntry[]> {
    const dropped: SpoolEntry[] = [];
    while (
      this.entries.length > 1 &&
      (this.entries.length > this.limits.maxSnapshots || this.totalBytes > this.limits.maxBytes)
    ) {
      const oldest = this.entries[0];
      await this.remove(oldest);
      dropped.push(oldest);
    }
    return dropped;
  }
}

function capturedAtOfName(name: string): Date | null {
  const match = /^(\d{15})-\d+-\d+\.json\.gz$/.exec(name);
  return match ? new Date(Number(match[1])) : null;
}
