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

{{/*
true when the umbrella chart runs the operators in one pod (global.operators.mode: combined): this
chart then binds its RBAC to that pod's ServiceAccount and renders no pod, Service or budget of its own.
*/}}
{{- define "network-addons-operator.combined" -}}
{{- eq (((.Values.global | default dict).operators | default dict).mode | default "separate") "combined" -}}
{{- end -}}

{{- define "network-addons-operator.serviceAccountName" -}}
{{- if eq (include "network-addons-operator.combined" .) "true" -}}
{{- printf "%s-operators" .Release.Name -}}
{{- else if .Values.serviceAccount.create -}}
{{- default (include "network-addons-operator.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The image; the umbrella chart's global.image.registry / tag, when set, override this chart's. */}}
{{- define "network-addons-operator.image" -}}
{{- $g := (.Values.global | default dict).image | default dict -}}
{{- $registry := $g.registry | default .Values.image.registry -}}
{{- $tag := $g.tag | default .Values.image.tag | default .Chart.AppVersion -}}
{{- printf "%s/%s:%s" $registry .Values.image.repository $tag -}}
{{- end -}}

{{- define "network-addons-operator.pullPolicy" -}}
{{- ((.Values.global | default dict).image | default dict).pullPolicy | default .Values.image.pullPolicy -}}
{{- end -}}

{{- define "network-addons-operator.logLevel" -}}
{{- (.Values.global | default dict).logLevel | default .Values.logLevel -}}
{{- end -}}


{{/* Where the components go: operandNamespace, else the release namespace. */}}
{{- define "network-addons-operator.operandNamespace" -}}
{{- default .Release.Namespace .Values.operandNamespace -}}
{{- end -}}

{{/* Leader election is required as soon as two replicas could reconcile at once. */}}
{{- define "network-addons-operator.leaderElect" -}}
{{- $global := ((.Values.global | default dict).leaderElection | default dict).enabled -}}
{{- if or .Values.leaderElection.enabled $global (gt (int .Values.replicas) 1) -}}true{{- else -}}false{{- end -}}
{{- end -}}

{{/* The ClusterRoles the operator renders (one per component), as a JSON list. */}}
{{- define "network-addons-operator.clusterRoleNames" -}}
["multus", "dynamic-networks-controller", "bridge-marker-cr", "kubemacpool-manager-role", "nmstate-handler", "ovs-cni-marker-cr", "secondary", "kubevirt-ipam-controller-manager-role"]
{{- end -}}

{{/* The ClusterRoleBindings the operator renders, as a JSON list. */}}
{{- define "network-addons-operator.clusterRoleBindingNames" -}}
["multus", "dynamic-networks-controller", "bridge-marker-crb", "kubemacpool-manager-rolebinding", "nmstate-handler", "ovs-cni-marker-crb", "secondary", "kubevirt-ipam-controller-manager-rolebinding"]
{{- end -}}
