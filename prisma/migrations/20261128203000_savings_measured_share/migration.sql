-- A measured share crossing zones applies to a Service's traffic interval by interval, as the savings
-- reference integrates it. Two changes follow:
--
-- 1. The savings read joins the Services with a value of their own through cluster_services_own_traffic;
--    a measured share without a measured volume is such a value too (it replaces the model's withHints
--    fraction), so the partial index covers it. The fix ranking's lookups (volume only) still imply it.
DROP INDEX "cluster_services_own_traffic";
CREATE INDEX "cluster_services_own_traffic" ON "cluster_services"("cluster_id", "namespace", "name")
  WHERE "monthly_traffic_gb" IS NOT NULL OR "measured_traffic_gb" IS NOT NULL OR "measured_cross_zone" IS NOT NULL;

-- 2. The roll-up keeps the model's as-routed crossings of the pieces that were opportunities
--    (opportunity_with_*), so an opportunity's missed GB under a measured share is exact for a Service that
--    was an opportunity for part of a range instead of prorated over its opportunity months.
ALTER TABLE "service_savings_days"
  ADD COLUMN "opportunity_with_months" DOUBLE PRECISION NOT NULL DEFAULT 0,
  ADD COLUMN "opportunity_with_traffic" DOUBLE PRECISION NOT NULL DEFAULT 0;

-- Backfill: day rows from their closed intervals' opportunity pieces, exactly as the worker writes them
-- (libs/db/src/read-model/savings-days.ts, dayPiecesSql), then week rows and tails from their day rows.
UPDATE "service_savings_days" r
   SET "opportunity_with_months" = p.with_months, "opportunity_with_traffic" = p.with_traffic
  FROM (SELECT i.cluster_id, i.service_id, d::date AS day,
               sum((w.m * COALESCE(i.cross_zone_with_hints, 0))::numeric)::float8 AS with_months,
               sum((w.m * i.traffic_gb * COALESCE(i.cross_zone_with_hints, 0))::numeric)::float8 AS with_traffic
          FROM service_intervals i
         CROSS JOIN LATERAL generate_series(date_trunc('day', i.valid_from AT TIME ZONE 'UTC'),
                                            (i.valid_to AT TIME ZONE 'UTC') - interval '1 microsecond',
                                            interval '1 day') AS d
         CROSS JOIN LATERAL (SELECT date_part('epoch', LEAST(i.valid_to AT TIME ZONE 'UTC', d + interval '1 day')
                                                 - GREATEST(i.valid_from AT TIME ZONE 'UTC', d)) / 2628000 AS m) w
         WHERE i.valid_to IS NOT NULL AND i.routing = 'None' AND i.preview_state = 'populated'
           AND COALESCE(i.managed_by, 'endpointslice-controller') = 'endpointslice-controller'
           AND i.preview_cross_zone IS NOT NULL
         GROUP BY i.cluster_id, i.service_id, d::date) p
 WHERE r.span_days = 1 AND r.cluster_id = p.cluster_id AND r.service_id = p.service_id AND r.day = p.day;

UPDATE "service_savings_days" r
   SET "opportunity_with_months" = s.with_months, "opportunity_with_traffic" = s.with_traffic
  FROM (SELECT t.cluster_id, t.span_days, t.day, t.service_id,
               COALESCE(sum(d.opportunity_with_months::numeric), 0)::float8 AS with_months,
               COALESCE(sum(d.opportunity_with_traffic::numeric), 0)::float8 AS with_traffic
          FROM "service_savings_days" t
          JOIN "service_savings_days" d
            ON d.cluster_id = t.cluster_id AND d.span_days = 1 AND d.service_id = t.service_id
           AND d.day >= t.day AND d.day < t.day + t.span_days
         WHERE t.span_days > 1 AND d.opportunity
         GROUP BY t.cluster_id, t.span_days, t.day, t.service_id) s
 WHERE r.cluster_id = s.cluster_id AND r.span_days = s.span_days AND r.day = s.day AND r.service_id = s.service_id;

