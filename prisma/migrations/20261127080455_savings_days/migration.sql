-- CreateTable
CREATE TABLE "service_savings_days" (
    "cluster_id" UUID NOT NULL,
    "span_days" SMALLINT NOT NULL,
    "day" DATE NOT NULL,
    "service_id" BIGINT NOT NULL,
    "months" DOUBLE PRECISION NOT NULL,
    "traffic_months" DOUBLE PRECISION NOT NULL,
    "without_months" DOUBLE PRECISION NOT NULL,
    "without_traffic" DOUBLE PRECISION NOT NULL,
    "with_months" DOUBLE PRECISION NOT NULL,
    "with_traffic" DOUBLE PRECISION NOT NULL,
    "missed_months" DOUBLE PRECISION NOT NULL,
    "missed_traffic" DOUBLE PRECISION NOT NULL,
    "opportunity_months" DOUBLE PRECISION NOT NULL,
    "opportunity_traffic" DOUBLE PRECISION NOT NULL,
    "annotation" BOOLEAN NOT NULL,
    "default_source" BOOLEAN NOT NULL,
    "opportunity" BOOLEAN NOT NULL,
    "opportunity_default" BOOLEAN NOT NULL,

    CONSTRAINT "service_savings_days_pkey" PRIMARY KEY ("cluster_id","span_days","day","service_id")
);

-- CreateIndex
CREATE INDEX "service_savings_days_service_id_day_idx" ON "service_savings_days"("service_id", "day");

-- AddForeignKey
ALTER TABLE "service_savings_days" ADD CONSTRAINT "service_savings_days_service_id_fkey" FOREIGN KEY ("service_id") REFERENCES "cluster_services"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: every closed interval's pieces per UTC day, summed per Service and day, then the days per
-- ISO week, exactly as the worker writes them (libs/db/src/read-model/savings-days.ts,
-- refreshSavingsDays). Open intervals are never in the roll-up.
INSERT INTO "service_savings_days" ("cluster_id", "span_days", "day", "service_id", "months", "traffic_months", "without_months",
                                    "without_traffic", "with_months", "with_traffic", "missed_months",
                                    "missed_traffic", "opportunity_months", "opportunity_traffic", "annotation",
                                    "default_source", "opportunity", "opportunity_default")
SELECT cluster_id, 1, day, service_id,
       sum(months::numeric)::float8, sum(traffic_months::numeric)::float8, sum(without_months::numeric)::float8,
       sum(without_traffic::numeric)::float8, sum(with_months::numeric)::float8, sum(with_traffic::numeric)::float8,
       sum(missed_months::numeric)::float8, sum(missed_traffic::numeric)::float8,
       sum(opportunity_months::numeric)::float8, sum(opportunity_traffic::numeric)::float8,
       bool_or(annotation), bool_or(default_source), bool_or(opportunity), bool_or(opportunity_default)
  FROM (
    SELECT i.cluster_id, i.service_id, d::date AS day, w.m AS months,
           w.m * i.traffic_gb AS traffic_months,
           w.m * COALESCE(i.cross_zone_without_hints, 0) AS without_months,
           w.m * i.traffic_gb * COALESCE(i.cross_zone_without_hints, 0) AS without_traffic,
           w.m * COALESCE(i.cross_zone_with_hints, 0) AS with_months,
           w.m * i.traffic_gb * COALESCE(i.cross_zone_with_hints, 0) AS with_traffic,
           COALESCE(w.m * w.missed, 0) AS missed_months,
           COALESCE(w.m * i.traffic_gb * w.missed, 0) AS missed_traffic,
           CASE WHEN w.missed IS NOT NULL THEN w.m ELSE 0 END AS opportunity_months,
           CASE WHEN w.missed IS NOT NULL THEN w.m * i.traffic_gb ELSE 0 END AS opportunity_traffic,
           COALESCE(i.traffic_source = 'annotation', false) AS annotation,
           COALESCE(i.traffic_source = 'default-per-endpoint', false) AS default_source,
           w.missed IS NOT NULL AS opportunity,
           w.missed IS NOT NULL AND COALESCE(i.traffic_source = 'default-per-endpoint', false) AS opportunity_default
      FROM "service_intervals" i
     CROSS JOIN LATERAL generate_series(date_trunc('day', i.valid_from AT TIME ZONE 'UTC'),
                                        (i.valid_to AT TIME ZONE 'UTC') - interval '1 microsecond',
                                        interval '1 day') AS d
     CROSS JOIN LATERAL (SELECT date_part('epoch', LEAST(i.valid_to AT TIME ZONE 'UTC', d + interval '1 day')
                                                   - GREATEST(i.valid_from AT TIME ZONE 'UTC', d)) / 2628000 AS m,
                                CASE WHEN i.routing = 'None' AND i.preview_state = 'populated'
                                          AND COALESCE(i.managed_by, 'endpointslice-controller') = 'endpointslice-controller'
                                     THEN COALESCE(i.cross_zone_with_hints, 0) - i.preview_cross_zone END AS missed) w
     WHERE i.valid_to IS NOT NULL
  ) pieces
 WHERE months > 0
 GROUP BY cluster_id, day, service_id;

INSERT INTO "service_savings_days" ("cluster_id", "span_days", "day", "service_id", "months", "traffic_months",
                                    "without_months", "without_traffic", "with_months", "with_traffic",
                                    "missed_months", "missed_traffic", "opportunity_months", "opportunity_traffic",
                                    "annotation", "default_source", "opportunity", "opportunity_default")
SELECT cluster_id, 7, date_trunc('week', day::timestamp)::date, service_id,
       sum(months::numeric)::float8, sum(traffic_months::numeric)::float8, sum(without_months::numeric)::float8,
       sum(without_traffic::numeric)::float8, sum(with_months::numeric)::float8, sum(with_traffic::numeric)::float8,
       sum(missed_months::numeric)::float8, sum(missed_traffic::numeric)::float8,
       sum(opportunity_months::numeric)::float8, sum(opportunity_traffic::numeric)::float8,
       bool_or(annotation), bool_or(default_source), bool_or(opportunity), bool_or(opportunity_default)
  FROM "service_savings_days"
 WHERE span_days = 1
 GROUP BY cluster_id, date_trunc('week', day::timestamp)::date, service_id;
