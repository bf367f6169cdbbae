{{/* Combinations of values no install could work with: the render stops, naming what to set. */}}
{{- define "zonewise.validate" -}}
{{- if not .Values.image.repository -}}
{{- fail "set image.repository (and image.tag): no public zonewise image exists; build one from the repository's Dockerfile, push it to a registry this cluster can pull from and name it here" -}}
{{- end -}}
{{- $secrets := include "zonewise.chartSecrets" . | fromYaml -}}
{{- if .Values.existingSecret -}}
{{- if $secrets -}}
{{- fail (printf "existingSecret is set, so the chart makes no Secret of its own: move %s into %s (or unset existingSecret)" (keys $secrets | sortAlpha | join ", ") .Values.existingSecret) -}}
{{- end -}}
{{- else -}}
{{- if not $secrets.DATABASE_URL -}}
{{- fail "set secrets.DATABASE_URL (postgresql://user:password@host:5432/database) or existingSecret (a Secret holding DATABASE_URL and REDIS_URL)" -}}
{{- end -}}
{{- if not $secrets.REDIS_URL -}}
{{- fail "set secrets.REDIS_URL (redis:// or rediss://user:password@host:6379) or existingSecret (a Secret holding DATABASE_URL and REDIS_URL)" -}}
{{- end -}}
{{- end -}}
{{- range $role := list "api" "worker" -}}
{{- $autoscaling := (index $.Values $role).autoscaling -}}
{{- if and $autoscaling.enabled (gt (int $autoscaling.minReplicas) (int $autoscaling.maxReplicas)) -}}
{{- fail (printf "%s.autoscaling.minReplicas (%d) is above %s.autoscaling.maxReplicas (%d)" $role (int $autoscaling.minReplicas) $role (int $autoscaling.maxReplicas)) -}}
{{- end -}}
{{- end -}}
{{- if eq (int .Values.api.port) (int .Values.api.metricsPort) -}}
{{- fail (printf "api.metricsPort (%d) must differ from api.port: /metrics is served on a port of its own" (int .Values.api.metricsPort)) -}}
{{- end -}}
{{- if and .Values.api.autoscaling.enabled (not (dig "requests" "cpu" "" .Values.api.resources)) -}}
{{- fail "set api.resources.requests.cpu: the API's autoscaler targets a share of it (or set api.autoscaling.enabled=false)" -}}
{{- end -}}
{{- if and .Values.worker.autoscaling.enabled (eq (include "zonewise.workerScaler" .) "hpa") (not (dig "requests" "cpu" "" .Values.worker.resources)) -}}
{{- fail "set worker.resources.requests.cpu: without KEDA the worker's autoscaler targets a share of it (or set worker.autoscaling.enabled=false)" -}}
{{- end -}}
{{- if and (eq (include "zonewise.workerScaler" .) "keda") .Values.existingSecret (not .Values.worker.autoscaling.redis.address) -}}
{{- fail "set worker.autoscaling.redis.address (host:port; a Redis Cluster's nodes, comma-separated): with existingSecret the chart cannot read REDIS_URL, and KEDA must reach the queue (or set worker.autoscaling.keda=false for the CPU autoscaler)" -}}
{{- end -}}
{{- with .Values.api.podDisruptionBudget -}}
{{- if and .enabled (not $.Values.api.autoscaling.enabled) (hasKey . "minAvailable") (not (kindIs "string" .minAvailable)) (ge (int .minAvailable) (int $.Values.api.replicas)) -}}
{{- fail (printf "api.podDisruptionBudget.minAvailable (%d) must be below api.replicas (%d), or no node could ever be drained" (int .minAvailable) (int $.Values.api.replicas)) -}}
{{- end -}}
{{- if and .enabled $.Values.api.autoscaling.enabled (hasKey . "minAvailable") (not (kindIs "string" .minAvailable)) (ge (int .minAvailable) (int $.Values.api.autoscaling.minReplicas)) -}}
{{- fail (printf "api.podDisruptionBudget.minAvailable (%d) must be below api.autoscaling.minReplicas (%d), or no node could ever be drained" (int .minAvailable) (int $.Values.api.autoscaling.minReplicas)) -}}
{{- end -}}
{{- end -}}
{{- if and .Values.api.ingress.enabled (not .Values.api.ingress.hosts) -}}
{{- fail "api.ingress.enabled needs at least one entry in api.ingress.hosts" -}}
{{- end -}}
{{- end -}}

{{/* Which autoscaler the worker gets: keda (a ScaledObject), hpa (CPU) or none. */}}
{{- define "zonewise.workerScaler" -}}
{{- $autoscaling := .Values.worker.autoscaling -}}
{{- if not $autoscaling.enabled -}}
none
{{- else if eq (toString $autoscaling.keda) "true" -}}
keda
{{- else if and (eq (toString $autoscaling.keda) "auto") (.Capabilities.APIVersions.Has "keda.sh/v1alpha1/ScaledObject") -}}
keda
{{- else -}}
hpa
{{- end -}}
{{- end -}}
