-- The Services with a traffic value of their own (set through the API or measured), which the fix ranking
-- re-prices: few or none in most clusters, so found without reading every Service of the cluster. Keyed
-- like the table's (cluster_id, namespace, name) key, so a lookup of one Service through it is as exact.
CREATE INDEX "cluster_services_own_traffic" ON "cluster_services"("cluster_id", "namespace", "name")
  WHERE "monthly_traffic_gb" IS NOT NULL OR "measured_traffic_gb" IS NOT NULL;
