import { readFile, stat } from 'node:fs/promises';

/** A problem with what the user gave us: exit code 2 and a one-line message. */
export class InputError extends Error {
  override name = 'InputError';
}

/** Far above any real cluster (a 5,000-node, 150,000-endpoint snapshot is ~100 MiB) and below V8's string limit. */
export const MAX_INPUT_BYTES = 480 * 1024 * 1024;

/** Reads and parses JSON input; `parse` may check more than the syntax (its own errors pass through). */
export async function readJsonInput(
  source: string,
  maxBytes = MAX_INPUT_BYTES,
  parse: (text: string) => unknown = JSON.parse,
): Promise<unknown> {
  const text = source === '-' ? await readStdin(maxBytes) : await readInputFile(source, maxBytes);
  try {
    return parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new InputError(`${displayName(source)}: not valid JSON (${(error as Error).message})`);
  }
}

export function displayName(source: string): string {
  return source === '-' ? 'stdin' : source;
}

async function readInputFile(path: string, maxBytes: number): Promise<string> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new InputError(`${path}: is a directory, expected a JSON file`);
    if (info.size > maxBytes)
      throw new InputError(`${path}: ${info.size} bytes is larger than the ${maxBytes}-byte limit`);
    return await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

async function readStdin(maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) throw new InputError(`stdin: more than the ${maxBytes}-byte limit`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
