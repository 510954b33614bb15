{{/* Name of the chart, shortened to a label-safe length. */}}
{{- define "network-addons-operator.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name: the release name, plus the chart name unless the release already contains it. */}}
{{- define "network-addons-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "network-addons-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "network-addons-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "network-addons-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "network-addons-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: stackops
{{- end -}}

{{- define "network-addons-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "network-addons-operator.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "network-addons-operator.image" -}}
{{- printf "%s/%s:%s" .Values.image.registry .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* Where the components go: operandNamespace, else the release namespace. */}}
{{- define "network-addons-operator.operandNamespace" -}}
{{- default .Release.Namespace .Values.operandNamespace -}}
{{- end -}}

{{/* Leader election is required as soon as two replicas could reconcile at once. */}}
{{- define "network-addons-operator.leaderElect" -}}
{{- if or .Values.leaderElection.enabled (gt (int .Values.replicas) 1) -}}true{{- else -}}false{{- end -}}
{{- end -}}
