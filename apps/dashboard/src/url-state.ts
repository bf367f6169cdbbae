import { useSearchParams } from 'wouter';

/**
 * A page's controls (filters, sorts, ranges) live in the URL's query string, so every view is a link to
 * share and back/forward walk through them. Setting a value pushes a history entry; empty removes it.
 */
export function useUrlState(): [
  (name: string) => string,
  (changes: Record<string, string | null>, options?: { replace?: boolean }) => void,
] {
  const [params, setParams] = useSearchParams();
  const read = (name: string) => params.get(name) ?? '';
  // Typing in a text filter replaces the entry (one per keystroke would make back useless).
  const write = (changes: Record<string, string | null>, options: { replace?: boolean } = {}) =>
    setParams((previous) => {
      const next = new URLSearchParams(previous);
      for (const [name, value] of Object.entries(changes)) {
        if (value === null || value === '') next.delete(name);
        else next.set(name, value);
      }
      return next;
    }, options);
  return [read, write];
}
