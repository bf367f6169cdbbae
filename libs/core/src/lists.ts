/**
 * List helpers for the analysis' hot paths, where a list's hidden class matters: optimized code that
 * reads a list is specialized to its elements kind and thrown away (then recompiled) when another kind
 * shows up. `list.map(f)` returns a packed list from unoptimized code but a holey one from optimized
 * code, and an empty `[]` holds small integers, not objects; both would keep the readers recompiling.
 */

/** `list.map(f)`, with the elements kind of `list` (a copy of it, overwritten) whatever tier runs it. */
export function mapList<T, U>(list: readonly T[], f: (item: T) => U): U[] {
  const mapped = list.slice() as unknown as U[];
  for (let i = 0; i < list.length; i++) mapped[i] = f(list[i]);
  return mapped;
}

/** An empty list with the elements kind of a list of objects. */
export function emptyObjectList<T extends object>(): T[] {
  const list = [{} as T];
  list.pop();
  return list;
}

/** Orders strings by their UTF-16 code units, as Go's `sort.Strings` orders bytes for the ASCII names Kubernetes allows. */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
