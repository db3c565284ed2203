{{/* Name of the release's objects: <release>-kairos, or the release name when it already says kairos. */}}
{{- define "kairos.fullname" -}}
{{- if contains "kairos" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-kairos" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "kairos.labels" -}}
app.kubernetes.io/name: kairos
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Selector labels of one role; call with (dict "root" $ "role" "api"). */}}
{{- define "kairos.selectorLabels" -}}
app.kubernetes.io/name: kairos
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end -}}

{{- define "kairos.terminationGraceSeconds" -}}
{{- add (div (int .Values.workerDrainMs) 1000) (int .Values.terminationGraceExtraSeconds) -}}
{{- end -}}
