/**
 * Runs `work` once the browser is idle (at the latest after `timeoutMs`), where a page's response to the
 * person matters more than housekeeping. Returns a function that cancels it.
 */
export function whenIdle(work: () => void, timeoutMs: number): () => void {
  if (typeof requestIdleCallback === 'function') {
    const handle = requestIdleCallback(work, { timeout: timeoutMs });
    return () => cancelIdleCallback(handle);
  }
  const handle = setTimeout(work, Math.min(timeoutMs, 1000));
  return () => clearTimeout(handle);
}
