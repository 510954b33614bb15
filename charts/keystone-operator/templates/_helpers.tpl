{{/* Name of the chart, shortened to a label-safe length. */}}
{{- define "keystone-operator.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Full name: the release name, plus the chart name unless the release already contains it. */}}
{{- define "keystone-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "keystone-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "keystone-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "keystone-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "keystone-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: stackops
{{- end -}}

{{/*
true when the umbrella chart runs the operators in one pod (global.operators.mode: combined): this
chart then binds its RBAC to that pod's ServiceAccount and renders no pod, Service or budget of its own.
*/}}
{{- define "keystone-operator.combined" -}}
{{- eq (((.Values.global | default dict).operators | default dict).mode | default "separate") "combined" -}}
{{- end -}}

{{- define "keystone-operator.serviceAccountName" -}}
{{- if eq (include "keystone-operator.combined" .) "true" -}}
{{- printf "%s-operators" .Release.Name -}}
{{- else if .Values.serviceAccount.create -}}
{{- default (include "keystone-operator.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The image; the umbrella chart's global.image.registry / tag, when set, override this chart's. */}}
{{- define "keystone-operator.image" -}}
{{- $g := (.Values.global | default dict).image | default dict -}}
{{- $registry := $g.registry | default .Values.image.registry -}}
{{- $tag := $g.tag | default .Values.image.tag | default .Chart.AppVersion -}}
{{- printf "%s/%s:%s" $registry .Values.image.repository $tag -}}
{{- end -}}

{{- define "keystone-operator.pullPolicy" -}}
{{- ((.Values.global | default dict).image | default dict).pullPolicy | default .Values.image.pullPolicy -}}
{{- end -}}

{{- define "keystone-operator.logLevel" -}}
{{- (.Values.global | default dict).logLevel | default .Values.logLevel -}}
{{- end -}}

{{/* Namespaces to watch, as JSON: global.watchNamespaces when set, else this chart's. */}}
{{- define "keystone-operator.watchNamespaces" -}}
{{- (.Values.global | default dict).watchNamespaces | default .Values.watchNamespaces | default list | toJson -}}
{{- end -}}

{{/* Leader election is required as soon as two replicas could reconcile at once. */}}
{{- define "keystone-operator.leaderElect" -}}
{{- $global := ((.Values.global | default dict).leaderElection | default dict).enabled -}}
{{- if or .Values.leaderElection.enabled $global (gt (int .Values.replicas) 1) -}}true{{- else -}}false{{- end -}}
{{- end -}}

{{/*
The rules the operator needs on the objects it manages, wherever it manages them (ClusterRole, or
one Role per watched namespace): exactly the kinds and verbs its three controllers use (the README's
"Permissions" lists why; tools/e2e/test/permissions.test.ts fails on anything more).
*/}}
{{- define "keystone-operator.namespacedRules" -}}
# KeystoneAPI, KeystoneService, KeystoneEndpoint, KeystoneApplicationCredential: read (cache),
# finalizers added and removed with JSON patches, status written.
- apiGroups: ["keystone.openstack.org"]
  resources: ["keystoneapis", "keystoneservices", "keystoneendpoints", "keystoneapplicationcredentials"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["keystone.openstack.org"]
  resources: ["keystoneapis/status", "keystoneservices/status", "keystoneendpoints/status", "keystoneapplicationcredentials/status"]
  verbs: ["get", "patch", "update"]
# Owner references with blockOwnerDeletion on what it creates.
- apiGroups: ["keystone.openstack.org"]
  resources: ["keystoneapis/finalizers", "keystoneservices/finalizers", "keystoneendpoints/finalizers", "keystoneapplicationcredentials/finalizers"]
  verbs: ["update"]
# What a KeystoneAPI creates (server-side apply), watches as their owner, and prunes. Secrets and
# ConfigMaps are listed and watched only through the label selector of the objects it owns; the
# Secrets a CR names are read by name (RBAC cannot limit list/watch to a label: set
# watchNamespaces to confine even that to your namespaces).
- apiGroups: [""]
  resources: ["secrets", "configmaps", "services", "serviceaccounts"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
# The API Deployment's PodDisruptionBudget (several replicas), deleted again at one replica.
- apiGroups: ["policy"]
  resources: ["poddisruptionbudgets"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["batch"]
  resources: ["jobs", "cronjobs"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
# keystone's pods run as ServiceAccount keystone-<name>, bound to Role keystone-<name>-role. That
# Role grants only `use` of the anyuid SecurityContextConstraints (OpenShift), which the operator
# must hold itself to grant it. No pods: the Deployment and Jobs create them, not the operator.
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["security.openshift.io"]
  resources: ["securitycontextconstraints"]
  resourceNames: ["anyuid"]
  verbs: ["use"]
# The IPs of keystone's pods on additional networks (status.networkAttachments).
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["list"]
- apiGroups: ["k8s.cni.cncf.io"]
  resources: ["network-attachment-definitions"]
  verbs: ["get", "list", "watch"]
# mariadb-operator (ADR 0013): the Galera named by databaseInstance is read to choose the mode; the
# service's MariaDBDatabase/MariaDBAccount are created and patched (labels, finalizer), never deleted.
# All of them are listed and watched (ADR 0022) so their status changes wake the KeystoneAPI.
- apiGroups: ["mariadb.openstack.org"]
  resources: ["galeras"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["mariadb.openstack.org"]
  resources: ["mariadbdatabases", "mariadbaccounts"]
  verbs: ["get", "list", "watch", "create", "patch"]
# infra-operator: the Memcached named by memcachedInstance and the Topology named by topologyRef are
# read, watched, and carry keystone's finalizer; the notifications TransportURL is created (server-side
# apply), watched, and deleted when notifications are turned off (only the one this KeystoneAPI
# controls, by uid precondition: a TransportURL left by upstream's operator is one of those).
- apiGroups: ["memcached.openstack.org"]
  resources: ["memcacheds"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["topology.openstack.org"]
  resources: ["topologies"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["rabbitmq.openstack.org"]
  resources: ["transporturls"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end -}}
