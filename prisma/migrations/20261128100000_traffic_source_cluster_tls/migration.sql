-- A traffic source's cluster selector (which of a shared Prometheus' clusters is this one), the CA
-- bundle its TLS connections trust, and how much of the window its last measurement covered.
ALTER TABLE "traffic_sources" ADD COLUMN     "cluster_label" TEXT NOT NULL DEFAULT 'cluster',
ADD COLUMN     "cluster_value" TEXT,
ADD COLUMN     "ca_bundle" TEXT,
ADD COLUMN     "coverage" DOUBLE PRECISION;
