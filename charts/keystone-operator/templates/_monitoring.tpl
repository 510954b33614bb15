{{- /* The operator's own alerts, the same in every stackops chart; see the README's Monitoring section. */ -}}
{{- define "keystone-operator.genericRules" -}}
{{- $fullname := include "keystone-operator.fullname" . }}
{{- $m := .Values.monitoring }}
{{- $sel := printf "namespace=%q, pod=~%q" .Release.Namespace (printf "%s-.*" $fullname) }}
{{- $labels := dict "kubernetes_operator_part_of" "stackops" "kubernetes_operator_component" "keystone-operator" -}}
- name: keystone-operator.recording.rules
  rules:
    - record: cluster:stackops_operator_up:sum
      expr: sum(up{ {{- $sel -}} } or vector(0))
      labels:
        {{- toYaml $labels | nindent 8 }}
- name: keystone-operator.alerts.rules
  rules:
    - alert: {{ $m.alertPrefix }}OperatorDown
      expr: cluster:stackops_operator_up:sum{kubernetes_operator_component="keystone-operator"} == 0
      for: 5m
      labels:
        severity: warning
        {{- toYaml $labels | nindent 8 }}
      annotations:
        summary: No keystone-operator pod has been scraped for 5 minutes.
        runbook_url: {{ printf $m.runbookUrlTemplate (printf "%sOperatorDown" $m.alertPrefix) | quote }}
    {{- if eq (include "keystone-operator.leaderElect" .) "true" }}
    - alert: {{ $m.alertPrefix }}OperatorNoLeader
      expr: (sum(leader_election_master_status{ {{- $sel -}} }) or vector(0)) == 0
      for: 5m
      labels:
        severity: warning
        {{- toYaml $labels | nindent 8 }}
      annotations:
        summary: No keystone-operator replica has held the leader lease for 5 minutes, so nothing is reconciled.
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
