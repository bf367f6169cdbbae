import { Eta } from 'eta';

/**
 * The HTML report's template engine (Eta): `<%= %>` escapes every value it prints (`& < > " '`), so text
 * from users or clusters cannot become markup; only `<%~ %>` prints markup as is, and the report's
 * templates use it for their own partials and the SVG charts alone. Whitespace is kept as written.
 */
export const templates = new Eta({ autoEscape: true, autoTrim: false, useWith: false, cache: true });

/** Text made safe for HTML and SVG element content and quoted attribute values (the engine's own escaper). */
export function escapeHtml(text: string): string {
  return templates.config.escapeFunction(text);
}
