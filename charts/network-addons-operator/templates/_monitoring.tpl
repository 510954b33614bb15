{{- /* The operator's own alerts, the same in every stackops chart; see the README's Monitoring section. */ -}}
{{- define "network-addons-operator.genericRules" -}}
{{- $fullname := include "network-addons-operator.fullname" . }}
{{- $m := .Values.monitoring }}
{{- $sel := printf "namespace=%q, pod=~%q" .Release.Namespace (printf "%s-.*" $fullname) }}
{{- $labels := dict "kubernetes_operator_part_of" "stackops" "kubernetes_operator_component" "network-addons-operator" -}}
- name: network-addons-operator.recording.rules
  rules:
    - record: cluster:stackops_operator_up:sum
      expr: sum(up{ {{- $sel -}} } or vector(0))
      labels:
        {{- toYaml $labels | nindent 8 }}
- name: network-addons-operator.alerts.rules
  rules:
    - alert: {{ $m.alertPrefix }}OperatorDown
      expr: cluster:stackops_operator_up:sum{kubernetes_operator_component="network-addons-operator"} == 0
      for: 5m
      labels:
        severity: warning
        {{- toYaml $labels | nindent 8 }}
      annotations:
        summary: No network-addons-operator pod has been scraped for 5 minutes.
        runbook_url: {{ printf $m.runbookUrlTemplate (printf "%sOperatorDown" $m.alertPrefix) | quote }}
    {{- if eq (include "network-addons-operator.leaderElect" .) "true" }}
    - alert: {{ $m.alertPrefix }}OperatorNoLeader
      expr: (sum(leader_election_master_status{ {{- $sel -}} }) or vector(0)) == 0
      for: 5m
      labels:
        severity: warning
        {{- toYaml $labels | nindent 8 }}
      annotations:
        summary: No network-addons-operator replica has held the leader lease for 5 minutes, so nothing is reconciled.
        runbook_url: {{ printf $m.runbookUrlTemplate (printf "%sOperatorNoLeader" $m.alertPrefix) | quote }}
    {{- end }}
    - alert: {{ $m.alertPrefix }}ReconcileErrors
      expr: sum by (controller) (rate(controller_runtime_reconcile_errors_total{ {{- $sel -}} }[5m])) > 0
      for: {{ $m.reconcileErrorsFor }}
      labels:
        severity: warning
        {{- toYaml $labels | nindent 8 }}
      annotations:
        summary: 'Controller {{ "{{" }} $labels.controller {{ "}}" }} has failed reconciles for {{ $m.reconcileErrorsFor }}.'
        runbook_url: {{ printf $m.runbookUrlTemplate (printf "%sReconcileErrors" $m.alertPrefix) | quote }}
    - alert: {{ $m.alertPrefix }}ResourceNotReady
      expr: max by (controller, resource_namespace, resource_name) (stackops_resource_ready{ {{- $sel -}} }) == 0
      for: {{ $m.notReadyFor }}
      labels:
        severity: warning
        {{- toYaml $labels | nindent 8 }}
      annotations:
        summary: '{{ "{{" }} $labels.controller {{ "}}" }} {{ "{{" }} $labels.resource_namespace {{ "}}" }}/{{ "{{" }} $labels.resource_name {{ "}}" }} has not been Ready for {{ $m.notReadyFor }}.'
        runbook_url: {{ printf $m.runbookUrlTemplate (printf "%sResourceNotReady" $m.alertPrefix) | quote }}
    - alert: {{ $m.alertPrefix }}WorkqueueDepthHigh
      expr: max by (controller) (workqueue_depth{ {{- $sel -}} }) > {{ $m.queueDepthThreshold }}
      for: 15m
      labels:
        severity: warning
        {{- toYaml $labels | nindent 8 }}
      annotations:
        summary: 'Controller {{ "{{" }} $labels.controller {{ "}}" }} has had more than {{ $m.queueDepthThreshold }} objects waiting for 15 minutes.'
        runbook_url: {{ printf $m.runbookUrlTemplate (printf "%sWorkqueueDepthHigh" $m.alertPrefix) | quote }}
{{- end -}}

{{- /*
Upstream CNAO's recording rules and alerts under its names, labels and runbook template, so its
dashboards and alert routes keep working: the operator's pods, KubeMacPool's manager pods (in the
operand namespace) and KubeMacPool's own collision gauge.
*/ -}}
{{- define "network-addons-operator.cnaoRules" -}}
{{- $m := .Values.monitoring }}
{{- $ns := .Release.Namespace }}
{{- $operand := include "network-addons-operator.operandNamespace" . }}
{{- $operatorUp := printf "sum(up{namespace='%s', pod=~'%s-.*'} or vector(0))" $ns (include "network-addons-operator.fullname" .) }}
{{- $kmpUp := printf "sum(up{namespace='%s', pod=~'kubemacpool-mac-controller-manager-.*'} or vector(0))" $operand }}
{{- $kmpDeployed := printf "sum(kubevirt_cnao_cr_kubemacpool_deployed{namespace='%s'} or vector(0))" $ns }}
{{- $labels := dict "kubernetes_operator_part_of" "kubevirt" "kubernetes_operator_component" "cluster-network-addons-operator" -}}
- name: recordingRules.rules
  rules:
    - record: kubevirt_cnao_operator_up
      expr: {{ $operatorUp | quote }}
    - record: cluster:kubevirt_cnao_operator_up:sum
      expr: {{ $operatorUp | quote }}
    - record: kubevirt_cnao_kubemacpool_manager_up
      expr: {{ $kmpUp | quote }}
    - record: cluster:kubevirt_cnao_kubemacpool_manager_up:sum
      expr: {{ $kmpUp | quote }}
    - record: kubevirt_cnao_cr_kubemacpool_aggregated
      expr: {{ $kmpDeployed | quote }}
    - record: cluster:kubevirt_cnao_cr_kubemacpool_deployed:sum
      expr: {{ $kmpDeployed | quote }}
    - record: kubevirt_cnao_kubemacpool_duplicate_macs
      expr: {{ printf "sum(kubevirt_kmp_duplicate_macs{namespace='%s'} or vector(0))" $operand | quote }}
- name: alerts.rules
  rules:
    - alert: CnaoDown
      expr: cluster:kubevirt_cnao_operator_up:sum == 0
      for: 5m
      labels:
        severity: warning
        operator_health_impact: warning
        {{- toYaml $labels | nindent 8 }}
      annotations:
        summary: No network-addons operator pod is up.
        runbook_url: {{ printf $m.runbookUrlTemplate "CnaoDown" | quote }}
    - alert: NetworkAddonsConfigNotReady
      expr: {{ printf "sum(kubevirt_cnao_cr_ready{namespace='%s'} or vector(0)) == 0" $ns | quote }}
      for: 5m
      labels:
        severity: warning
        operator_health_impact: warning
        {{- toYaml $labels | nindent 8 }}
      annotations:
        summary: The NetworkAddonsConfig has not been Available for 5 minutes.
        runbook_url: {{ printf $m.runbookUrlTemplate "NetworkAddonsConfigNotReady" | quote }}
    - alert: KubemacpoolDown
      expr: cluster:kubevirt_cnao_cr_kubemacpool_deployed:sum == 1 and cluster:kubevirt_cnao_kubemacpool_manager_up:sum == 0
      for: 5m
      labels:
        severity: critical
        operator_health_impact: critical
        {{- toYaml $labels | nindent 8 }}
      annotations:
        summary: The NetworkAddonsConfig asks for KubeMacPool, and no KubeMacPool manager pod is up.
        runbook_url: {{ printf $m.runbookUrlTemplate "KubemacpoolDown" | quote }}
    - alert: KubemacpoolMACCollisionDetected
      expr: count(kmp_mac_collisions > 1) > 0
      for: 30s
      labels:
        severity: warning
        {{- toYaml $labels | nindent 8 }}
      annotations:
        summary: Several running objects use the same MAC address.
        description: '{{ "{{" }} $value {{ "}}" }} MAC address(es) are in use more than once.'
        runbook_url: {{ printf $m.runbookUrlTemplate "KubemacpoolMACCollisionDetected" | quote }}
{{- end -}}
