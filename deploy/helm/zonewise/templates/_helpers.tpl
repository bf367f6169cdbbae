{{- define "zonewise.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "zonewise.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* A component's name: <fullname>-<component>, within the 63 characters of a label value. */}}
{{- define "zonewise.componentName" -}}
{{- printf "%s-%s" (include "zonewise.fullname" .root | trunc (int (sub 62 (len .component))) | trimSuffix "-") .component -}}
{{- end -}}

{{- define "zonewise.selectorLabels" -}}
app.kubernetes.io/name: {{ include "zonewise.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "zonewise.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{ include "zonewise.selectorLabels" . }}
app.kubernetes.io/part-of: zonewise
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end -}}

{{- define "zonewise.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion | toString) -}}
{{- end -}}

{{- define "zonewise.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "zonewise.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The Secret every zonewise container reads its credentials from (envFrom). */}}
{{- define "zonewise.secretName" -}}
{{- default (include "zonewise.fullname" .) .Values.existingSecret -}}
{{- end -}}

{{/* The settings of `secrets` that are set, as a dict. */}}
{{- define "zonewise.chartSecrets" -}}
{{- $set := dict -}}
{{- range $name, $value := .Values.secrets -}}
{{- if $value }}{{ $_ := set $set $name $value }}{{ end -}}
{{- end -}}
{{- toYaml $set -}}
{{- end -}}

{{/*
An environment variable's value as a string. Helm reads numbers from values files as float64, which
print as 6.7108864e+07: whole numbers print as integers.
*/}}
{{- define "zonewise.envString" -}}
{{- if and (kindIs "float64" .) (eq (floor .) .) -}}
{{- int64 . | toString -}}
{{- else -}}
{{- toString . -}}
{{- end -}}
{{- end -}}

{{/* `config`, then the role's own settings over it, then its extraEnv, as env entries (YAML). */}}
{{- define "zonewise.configEnv" -}}
{{- $role := index .root.Values .role -}}
{{- $merged := merge (deepCopy ($role.config | default dict)) (.root.Values.config | default dict) -}}
{{- $entries := list -}}
{{- range $name := keys $merged | sortAlpha -}}
{{- $entries = append $entries (dict "name" $name "value" (include "zonewise.envString" (index $merged $name))) -}}
{{- end -}}
{{- $entries = concat $entries ($role.extraEnv | default list) -}}
{{- if $entries }}{{ toYaml $entries }}{{ end -}}
{{- end -}}

{{/* A setting's value for a role: the role's config, else `config`, else the default given. */}}
{{- define "zonewise.setting" -}}
{{- $role := index .root.Values .role -}}
{{- $value := .default -}}
{{- if hasKey (.root.Values.config | default dict) .name }}{{ $value = index .root.Values.config .name }}{{ end -}}
{{- if hasKey ($role.config | default dict) .name }}{{ $value = index $role.config .name }}{{ end -}}
{{- include "zonewise.envString" $value -}}
{{- end -}}

{{/* Pod-level settings shared by every zonewise pod. Call with dict "root" $ "role" "api". */}}
{{- define "zonewise.podSpecCommon" -}}
{{- $role := index .root.Values .role -}}
automountServiceAccountToken: false
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
{{- with $role.priorityClassName }}
priorityClassName: {{ . | quote }}
{{- end }}
{{- with $role.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $role.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $role.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* The checksum of the chart's own Secret, so pods roll when a credential changes. */}}
{{- define "zonewise.secretsChecksum" -}}
{{- if .Values.existingSecret -}}
{{- .Values.existingSecret | sha256sum | trunc 16 -}}
{{- else -}}
{{- include "zonewise.chartSecrets" . | sha256sum | trunc 16 -}}
{{- end -}}
{{- end -}}
