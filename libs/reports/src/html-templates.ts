/**
 * The HTML report's markup, as Eta templates: `<%= %>` escapes what it prints, `<%~ %>` prints the
 * templates' own partials and the SVG charts as they are. The views they read are built in html.ts.
 */
import { templates } from './html-escape.js';

const TABLE = `<% if (it.rows.length === 0) { %><p class="muted"><%= it.empty %></p><% } else {
  const cls = (index) => (it.numeric.includes(index) ? ' class="num"' : '');
%><table><thead><tr><% it.headers.forEach((header, index) => { %><th<%~ cls(index) %>><%= header %></th><% }) %></tr></thead><tbody><% it.rows.forEach((cells) => { %><tr><% cells.forEach((cell, index) => { %><td<%~ cls(index) %>><%= cell %></td><% }) %></tr><% }) %></tbody></table><% } %>`;

const CARD = `<div class="card"><div class="label"><%= it.label %></div><div class="value <%= it.tone %>"><%= it.value %></div><div class="detail"><%= it.detail %></div></div>`;

const HEADLINE = `<section class="cards"><% it.cards.forEach((card) => { %>
    <%~ include('@card', card) %><% }) %>
  </section>`;

const TREND = `<% if (it) { %><h2>Trends</h2>
    <p class="muted">The gap between “without hints” and “as routed” is what topology routing saved; the gap down to “if enabled” is what enabling it where it would work would have saved.</p>
    <div class="chart"><%~ it.cost %></div><div class="chart"><%~ it.states %></div><% } %>`;

const MISSED = `<h2>Savings missed, and why</h2>
    <div class="chart"><%~ it.chart %></div>
    <p class="muted">“Not enabled” is what enabling <code>topology-mode: Auto</code> would have saved. For the other reasons the controller refuses hints, so the figure is the cross-zone traffic those Services still made: the most that fixing the cause could save.</p>`;

const OPPORTUNITIES = `<h2>Top Services by opportunity</h2><div class="chart"><%~ it.chart %></div>
    <%~ include('@table', it.table) %>`;

const FIXES = `<h2>Top fixes</h2>
    <p>The changes that would make Services route in-zone, as of the end of the period: each Service's best fix, largest monthly saving first. Each was checked by running the EndpointSlice controller model with the change applied.</p>
    <%~ include('@table', it.table) %>
    <% it.patches.forEach((patch) => { %><h3><%= patch.title %></h3><pre><%= patch.patch %></pre><% }) %>`;

const CLUSTERS = `<h2>Clusters</h2><%~ include('@table', it.table) %>`;

const MEASURED = `<% if (it) { %><h2>Model against measurement</h2>
    <p>Clusters with a traffic source, as of when this report was made: the share of their traffic that is measured, and over the Services whose source gives zones, the modelled cross-zone share and monthly cost against the measured ones (error = model − measured).</p>
    <%~ include('@table', it.table) %><% } %>`;

const CONTRADICTIONS = `<% if (it) { %><h2>Measured traffic that contradicts the hints</h2>
    <p>These Services have populated hints, so the model routes their requests in-zone, but their traffic source measured far more of their bytes crossing zones: a data plane that ignores the hints, or clients outside the cluster. Their figures follow the measurement.</p>
    <%~ include('@table', it.table) %><% } %>`;

const HINT_STATES = `<h2>Hint-state changes and flapping</h2>
    <p><%= it.summary %></p>
    <%~ include('@table', it.transitions) %>
    <h3>Flapping Services</h3>
    <%~ include('@table', it.flapping) %>`;

const RISKS = `<h2>Zones at risk of overload</h2>
    <%~ include('@table', it.zones) %>
    <h2>Service CIDR risks</h2>
    <%~ include('@table', it.cidrs) %>`;

const NOTES = `<h2>How these figures are made</h2><ul class="notes"><% it.forEach((note) => { %><li><%= note %></li><% }) %></ul>`;

const PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title><%= it.title %></title>
<style><%~ it.style %></style>
</head><body><main>
<h1><%= it.title %></h1>
<p class="subtitle">zonewise cost-savings report · <%= it.scope %> · <%= it.timeZone %> · generated <%= it.generatedAt %><%= it.estimate ? ' · includes estimates' : '' %></p>
<%~ include('@headline', it.headline) %>
<%~ include('@trend', it.trend) %>
<%~ include('@missed', it.missed) %>
<%~ include('@opportunities', it.opportunities) %>
<%~ include('@fixes', it.fixes) %>
<%~ include('@clusters', it.clusters) %>
<%~ include('@measured', it.measured) %>
<%~ include('@contradictions', it.contradictions) %>
<%~ include('@hintStates', it.hintStates) %>
<%~ include('@risks', it.risks) %>
<%~ include('@notes', it.notes) %>
<p class="muted">Missed-saving reasons: <%= it.reasons.join(', ') %>. All amounts in <%= it.currency %>.</p>
</main></body></html>
`;

const ALL = {
  '@table': TABLE,
  '@card': CARD,
  '@headline': HEADLINE,
  '@trend': TREND,
  '@missed': MISSED,
  '@opportunities': OPPORTUNITIES,
  '@fixes': FIXES,
  '@clusters': CLUSTERS,
  '@measured': MEASURED,
  '@contradictions': CONTRADICTIONS,
  '@hintStates': HINT_STATES,
  '@risks': RISKS,
  '@notes': NOTES,
  '@page': PAGE,
};
for (const [name, template] of Object.entries(ALL)) templates.loadTemplate(name, template);

/** A table of text cells: `numeric` lists the columns aligned right; `empty` is said instead of no rows. */
export interface TableView {
  headers: readonly string[];
  rows: readonly (readonly string[])[];
  numeric: readonly number[];
  empty: string;
}

export function renderPage(view: object): string {
  return templates.render('@page', view);
}
