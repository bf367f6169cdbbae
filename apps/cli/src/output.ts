/** Writes one JSON document to stdout and resolves once it is flushed, so large outputs survive pipes. */
export function writeJson(value: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(`${JSON.stringify(value)}\n`, (error) => (error ? reject(error) : resolve()));
  });
}

/** Writes text for a person to stdout and resolves once it is flushed. */
export function writeText(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (error) => (error ? reject(error) : resolve()));
  });
}
