-- Backfill: every ISO week's tails (a Service's days from each Tuesday to Saturday through the week's
-- Sunday, span_days 6 to 2, keyed on their first day), summed from the day rows exactly as the worker
-- writes them (libs/db/src/read-model/savings-days.ts, refreshSavingsDays). No schema change.
INSERT INTO "service_savings_days" ("cluster_id", "span_days", "day", "service_id", "months", "traffic_months",
                                    "without_months", "without_traffic", "with_months", "with_traffic",
                                    "missed_months", "missed_traffic", "opportunity_months", "opportunity_traffic",
                                    "annotation", "default_source", "opportunity", "opportunity_default")
SELECT cluster_id, 8 - tail.first_weekday, day - (extract(isodow FROM day)::int - tail.first_weekday), service_id,
       sum(months::numeric)::float8, sum(traffic_months::numeric)::float8, sum(without_months::numeric)::float8,
       sum(without_traffic::numeric)::float8, sum(with_months::numeric)::float8, sum(with_traffic::numeric)::float8,
       sum(missed_months::numeric)::float8, sum(missed_traffic::numeric)::float8,
       sum(opportunity_months::numeric)::float8, sum(opportunity_traffic::numeric)::float8,
       bool_or(annotation), bool_or(default_source), bool_or(opportunity), bool_or(opportunity_default)
  FROM "service_savings_days"
 CROSS JOIN LATERAL generate_series(2, LEAST(extract(isodow FROM day)::int, 6)) AS tail(first_weekday)
 WHERE span_days = 1
 GROUP BY cluster_id, 8 - tail.first_weekday, day - (extract(isodow FROM day)::int - tail.first_weekday), service_id;
