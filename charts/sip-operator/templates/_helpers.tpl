{{/* Name of the chart, shortened to a label-safe length. */}}
{{- define "sip-operator.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name: the release name, plus the chart name unless the release already contains it. */}}
{{- define "sip-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "sip-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sip-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "sip-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "sip-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: stackops
{{- end -}}

{{/*
true when the umbrella chart runs the operators in one pod (global.operators.mode: combined): this
chart then binds its RBAC to that pod's ServiceAccount and renders no pod, Service or budget of its own.
*/}}
{{- define "sip-operator.combined" -}}
{{- eq (((.Values.global | default dict).operators | default dict).mode | default "separate") "combined" -}}
{{- end -}}

{{- define "sip-operator.serviceAccountName" -}}
{{- if eq (include "sip-operator.combined" .) "true" -}}
{{- printf "%s-operators" .Release.Name -}}
{{- else if .Values.serviceAccount.create -}}
{{- default (include "sip-operator.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The image; the umbrella chart's global.image.registry / tag, when set, override this chart's. */}}
{{- define "sip-operator.image" -}}
{{- $g := (.Values.global | default dict).image | default dict -}}
{{- $registry := $g.registry | default .Values.image.registry -}}
{{- $tag := $g.tag | default .Values.image.tag | default .Chart.AppVersion -}}
{{- printf "%s/%s:%s" $registry .Values.image.repository $tag -}}
{{- end -}}

{{- define "sip-operator.pullPolicy" -}}
{{- ((.Values.global | default dict).image | default dict).pullPolicy | default .Values.image.pullPolicy -}}
{{- end -}}

{{- define "sip-operator.logLevel" -}}
{{- (.Values.global | default dict).logLevel | default .Values.logLevel -}}
{{- end -}}

{{/* Namespaces to watch, as JSON: global.watchNamespaces when set, else this chart's. */}}
{{- define "sip-operator.watchNamespaces" -}}
{{- (.Values.global | default dict).watchNamespaces | default .Values.watchNamespaces | default list | toJson -}}
{{- end -}}

{{/* Leader election is required as soon as two replicas could reconcile at once. */}}
{{- define "sip-operator.leaderElect" -}}
{{- $global := ((.Values.global | default dict).leaderElection | default dict).enabled -}}
{{- if or .Values.leaderElection.enabled $global (gt (int .Values.replicas) 1) -}}true{{- else -}}false{{- end -}}
{{- end -}}

{{/*
The operator's rules, wherever it watches: SIPClusters and the services they own; BareMetalHosts
(labels) and their networkData / BMC credentials Secrets (read).
*/}}
{{- define "sip-operator.rules" -}}
- apiGroups: ["airship.airshipit.org"]
  resources: ["sipclusters"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["airship.airshipit.org"]
  resources: ["sipclusters/status"]
  verbs: ["get", "patch"]
- apiGroups: ["airship.airshipit.org"]
  resources: ["sipclusters/finalizers"]
  verbs: ["update"]
- apiGroups: [""]
  resources: ["secrets", "configmaps", "services"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
- apiGroups: ["metal3.io"]
  resources: ["baremetalhosts"]
  verbs: ["get", "list", "watch", "patch"]
{{- end -}}

{{/*
Grants a set of rules to the operator's ServiceAccount: a ClusterRole and ClusterRoleBinding when
`namespaces` is empty, else one Role and RoleBinding per namespace.
Arguments (dict): root (the chart context), suffix (name suffix), rules (the rules' template name), namespaces.
*/}}
{{- define "sip-operator.grant" -}}
{{- $root := .root -}}
{{- $name := printf "%s-%s" (include "sip-operator.fullname" $root) .suffix | trunc 63 | trimSuffix "-" -}}
{{- $sa := include "sip-operator.serviceAccountName" $root -}}
{{- if .namespaces }}
{{- range $ns := .namespaces }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $name }}
  namespace: {{ $ns }}
  labels:
    {{- include "sip-operator.labels" $root | nindent 4 }}
rules:
  {{- include $.rules $root | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $name }}
  namespace: {{ $ns }}
  labels:
    {{- include "sip-operator.labels" $root | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $name }}
subjects:
  - kind: ServiceAccount
    name: {{ $sa }}
    namespace: {{ $root.Release.Namespace }}
{{- end }}
{{- else }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: {{ $name }}
  labels:
    {{- include "sip-operator.labels" $root | nindent 4 }}
rules:
  {{- include .rules $root | nindent 2 }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ $name }}
  labels:
    {{- include "sip-operator.labels" $root | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ $name }}
subjects:
  - kind: ServiceAccount
    name: {{ $sa }}
    namespace: {{ $root.Release.Namespace }}
{{- end }}
{{- end -}}
