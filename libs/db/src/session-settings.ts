/**
 * What every connection this code base opens sets for its session, as the `options` of its pg pool
 * (`-c name=value` each), with `extra` settings of that pool after them.
 *
 * Decision: no JIT compilation. Postgres compiles a statement whose estimated cost passes
 * `jit_above_cost` (100,000), and its estimate for a set-returning function (1,000 rows a call) puts the
 * worker's roll-up write past it: compiling took 62 ms of that statement's 161 ms for a 1,000-Service
 * snapshot, and 1.2 s once an estimate passed the inlining threshold. Every statement here runs in
 * milliseconds on indexed rows; none gains from compiled expressions.
 */
export function sessionOptions(extra: Record<string, string> = {}): string {
  return Object.entries({ jit: 'off', ...extra })
    .map(([name, value]) => `-c ${name}=${value}`)
    .join(' ');
}
