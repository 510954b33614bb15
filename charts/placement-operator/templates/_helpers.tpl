{{/* Name of the chart, shortened to a label-safe length. */}}
{{- define "placement-operator.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name: the release name, plus the chart name unless the release already contains it. */}}
{{- define "placement-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "placement-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "placement-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "placement-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "placement-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: stackops
{{- end -}}

{{/*
true when the umbrella chart runs the operators in one pod (global.operators.mode: combined): this
chart then binds its RBAC to that pod's ServiceAccount and renders no pod, Service or budget of its own.
*/}}
{{- define "placement-operator.combined" -}}
{{- eq (((.Values.global | default dict).operators | default dict).mode | default "separate") "combined" -}}
{{- end -}}

{{- define "placement-operator.serviceAccountName" -}}
{{- if eq (include "placement-operator.combined" .) "true" -}}
{{- printf "%s-operators" .Release.Name -}}
{{- else if .Values.serviceAccount.create -}}
{{- default (include "placement-operator.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The image; the umbrella chart's global.image.registry / tag, when set, override this chart's. */}}
{{- define "placement-operator.image" -}}
{{- $g := (.Values.global | default dict).image | default dict -}}
{{- $registry := $g.registry | default .Values.image.registry -}}
{{- $tag := $g.tag | default .Values.image.tag | default .Chart.AppVersion -}}
{{- printf "%s/%s:%s" $registry .Values.image.repository $tag -}}
{{- end -}}

{{- define "placement-operator.pullPolicy" -}}
{{- ((.Values.global | default dict).image | default dict).pullPolicy | default .Values.image.pullPolicy -}}
{{- end -}}

{{- define "placement-operator.logLevel" -}}
{{- (.Values.global | default dict).logLevel | default .Values.logLevel -}}
{{- end -}}

{{/* Namespaces to watch, as JSON: global.watchNamespaces when set, else this chart's. */}}
{{- define "placement-operator.watchNamespaces" -}}
{{- (.Values.global | default dict).watchNamespaces | default .Values.watchNamespaces | default list | toJson -}}
{{- end -}}

{{/* Leader election is required as soon as two replicas could reconcile at once. */}}
{{- define "placement-operator.leaderElect" -}}
{{- $global := ((.Values.global | default dict).leaderElection | default dict).enabled -}}
{{- if or .Values.leaderElection.enabled $global (gt (int .Values.replicas) 1) -}}true{{- else -}}false{{- end -}}
{{- end -}}

{{/*
The rules the operator needs on the objects it manages, wherever it manages them (ClusterRole, or
one Role per watched namespace).
*/}}
{{- define "placement-operator.namespacedRules" -}}
# PlacementAPI: read (cache), finalizer added and removed with JSON patches, status written.
- apiGroups: ["placement.openstack.org"]
  resources: ["placementapis"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["placement.openstack.org"]
  resources: ["placementapis/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: ["placement.openstack.org"]
  resources: ["placementapis/finalizers"]
  verbs: ["update"]
# Keystone registration: reads the namespace's KeystoneAPI, owns a KeystoneService and a KeystoneEndpoint.
- apiGroups: ["keystone.openstack.org"]
  resources: ["keystoneapis"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["keystone.openstack.org"]
  resources: ["keystoneservices", "keystoneendpoints"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
# What a PlacementAPI creates (server-side apply), watches as their owner, and prunes. Secrets are
# listed and watched only through the label selector of the ones it owns; the Secret a CR names is
# read by name (RBAC cannot limit list/watch to a label: set watchNamespaces to confine it).
- apiGroups: [""]
  resources: ["secrets", "services", "serviceaccounts"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
# The API Deployment's PodDisruptionBudget (several replicas), deleted again at one replica.
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
# placement's pods run as ServiceAccount placement-<name>, bound to Role placement-<name>-role,
# which grants only `use` of the anyuid SecurityContextConstraints (OpenShift): the operator holds
# that to grant it. No pods: the Deployment and Jobs create them, not the operator.
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["security.openshift.io"]
  resources: ["securitycontextconstraints"]
  resourceNames: ["anyuid"]
  verbs: ["use"]
# The IPs of placement's pods on additional networks (status.networkAttachments).
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list"]
- apiGroups: ["k8s.cni.cncf.io"]
  resources: ["network-attachment-definitions"]
  verbs: ["get", "list", "watch"]
# mariadb-operator (ADR 0013): the Galera named by databaseInstance is read to choose the mode; the
# service's MariaDBDatabase/MariaDBAccount are created and patched (labels, finalizer), never deleted.
# All of them are listed and watched (ADR 0022) so their status changes wake the PlacementAPI.
- apiGroups: ["mariadb.openstack.org"]
  resources: ["galeras"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["mariadb.openstack.org"]
  resources: ["mariadbdatabases", "mariadbaccounts"]
  verbs: ["get", "list", "watch", "create", "patch"]
# infra-operator's Topology named by topologyRef: read, watched, and carries placement's finalizer.
- apiGroups: ["topology.openstack.org"]
  resources: ["topologies"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end -}}
