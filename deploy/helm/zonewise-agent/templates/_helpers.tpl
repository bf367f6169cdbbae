{{- define "zonewise-agent.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "zonewise-agent.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "zonewise-agent.selectorLabels" -}}
app.kubernetes.io/name: {{ include "zonewise-agent.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "zonewise-agent.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "zonewise-agent.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "zonewise-agent.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "zonewise-agent.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "zonewise-agent.secretName" -}}
{{- default (include "zonewise-agent.fullname" .) .Values.existingSecret.name -}}
{{- end -}}

{{- define "zonewise-agent.secretKey" -}}
{{- if .Values.existingSecret.name -}}{{ .Values.existingSecret.key }}{{- else -}}token{{- end -}}
{{- end -}}
