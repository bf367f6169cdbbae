/** Polls `check` until it returns a truthy value or the deadline passes (then throws with `what`). */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | null | undefined | false | 0>,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
