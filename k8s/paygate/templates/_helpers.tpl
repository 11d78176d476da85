{{/* The release's full name: resources are "<fullname>-<app>". */}}
{{- define "paygate.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/*
The apps this chart runs: values key -> app name (dist/apps/<name>/main.js), the Secret's keys
each one reads (true: required, false: optional), whether values may disable it, and for the
apps that serve commands the variable that tells the gateway where.
*/}}
{{- define "paygate.appTable" -}}
apiGateway:
  name: api-gateway
  secrets: { STORE_URL: true, BROKER_URL: true, EVENT_STORE_URL: false, KAFKA_SASL_PASSWORD: false, METRICS_TOKEN: false, OTEL_EXPORTER_OTLP_HEADERS: false, MASTER_KEY: true, ADMIN_TOKEN: false }
collections:
  name: collections
  commands: COLLECTIONS_COMMANDS_URL
  secrets: { STORE_URL: true, BROKER_URL: true, EVENT_STORE_URL: false, KAFKA_SASL_PASSWORD: false, METRICS_TOKEN: false, OTEL_EXPORTER_OTLP_HEADERS: false, MOMO_API_USER: false, MOMO_API_KEY: false, MOMO_SUBSCRIPTION_KEY: false, CARD_SECRET_KEY: false }
servicePayments:
  name: service-payments
  commands: PAYMENTS_COMMANDS_URL
  secrets: { STORE_URL: true, BROKER_URL: true, EVENT_STORE_URL: false, KAFKA_SASL_PASSWORD: false, METRICS_TOKEN: false, OTEL_EXPORTER_OTLP_HEADERS: false, BILLER_API_KEY: false, MOMO_API_USER: false, MOMO_API_KEY: false, MOMO_SUBSCRIPTION_KEY: false, MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: false, CARD_SECRET_KEY: false }
webhookDispatcher:
  name: webhook-dispatcher
  commands: WEBHOOKS_COMMANDS_URL
  secrets: { STORE_URL: true, BROKER_URL: true, EVENT_STORE_URL: false, KAFKA_SASL_PASSWORD: false, METRICS_TOKEN: false, OTEL_EXPORTER_OTLP_HEADERS: false, MASTER_KEY: true }
sandbox:
  name: sandbox
  optional: true
  secrets: { STORE_URL: true, BROKER_URL: true, EVENT_STORE_URL: false, KAFKA_SASL_PASSWORD: false, METRICS_TOKEN: false, OTEL_EXPORTER_OTLP_HEADERS: false, ADMIN_TOKEN: false, BILLER_API_KEY: false }
{{- end -}}

{{/*
The apps to render, as a list of { key, name, secrets, values }, each checked for what the
schema cannot express.
*/}}
{{- define "paygate.enabledApps" -}}
{{- $apps := list -}}
{{- range $key, $app := fromYaml (include "paygate.appTable" .) -}}
{{- $values := index $.Values.apps $key -}}
{{- if or (not $app.optional) $values.enabled -}}
{{- $scaling := $values.autoscaling -}}
{{- if and $scaling.enabled (gt (int $scaling.minReplicas) (int $scaling.maxReplicas)) -}}
{{- fail (printf "apps.%s.autoscaling: minReplicas (%v) must not be above maxReplicas (%v)" $key $scaling.minReplicas $scaling.maxReplicas) -}}
{{- end -}}
{{- $apps = append $apps (dict "key" $key "name" $app.name "secrets" $app.secrets "commands" ($app.commands | default "") "values" $values) -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "apps" $apps) -}}
{{- end -}}

{{- define "paygate.sandboxEnabled" -}}
{{- if .Values.apps.sandbox.enabled }}true{{ end -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "paygate.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: paygate
{{- end -}}

{{/* Selector labels of one app: call with (dict "root" $ "app" $app). */}}
{{- define "paygate.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .app.name }}
{{- end -}}

{{- define "paygate.appLabels" -}}
{{ include "paygate.labels" .root }}
app.kubernetes.io/component: {{ .app.name }}
{{- end -}}

{{- define "paygate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "paygate.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "paygate.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* In-cluster base URL of one app's Service: call with (dict "root" $ "name" "sandbox"). */}}
{{- define "paygate.serviceUrl" -}}
{{- printf "http://%s-%s" (include "paygate.fullname" .root) .name -}}
{{- if ne (int .root.Values.service.port) 80 }}:{{ .root.Values.service.port }}{{ end -}}
{{- end -}}

{{/* A provider API: the value given, else the sandbox's route, else a clear failure. */}}
{{- define "paygate.providerUrl" -}}
{{- $given := index .root.Values.providers .key -}}
{{- if $given -}}
{{- $given -}}
{{- else if .root.Values.apps.sandbox.enabled -}}
{{- printf "%s/sandbox/%s" (include "paygate.serviceUrl" (dict "root" .root "name" "sandbox")) .route -}}
{{- else -}}
{{- fail (printf "providers.%s is required when apps.sandbox.enabled is false (the sandbox is what stands in for it)" .key) -}}
{{- end -}}
{{- end -}}

{{/*
The non-secret environment of one app (its ConfigMap's data): the shared config, the port, and
the URLs the chart derives. Call with (dict "root" $ "app" $app).
*/}}
{{- define "paygate.configData" -}}
{{- $root := .root -}}
{{- $data := dict "PORT" (toString $root.Values.containerPort) -}}
{{- range $variable, $value := $root.Values.config -}}
{{- $_ := set $data $variable (toString $value) -}}
{{- end -}}
{{- if $root.Values.migrations.job.enabled -}}
{{- /* The hook Job has applied every migration: an app that finds one missing refuses to start. */ -}}
{{- $_ := set $data "MIGRATE_ON_START" "false" -}}
{{- end -}}
{{- /* Commands: a serving app listens on commandsPort; every app learns each serving app's headless Service, whose DNS name lists every pod (commands go round-robin over them). */ -}}
{{- $_ := set $data "COMMANDS_TLS_DIR" $root.Values.commandsTls.mountPath -}}
{{- if .app.commands -}}
{{- $_ := set $data "COMMANDS_LISTEN_URL" (printf "tcp://0.0.0.0:%v" $root.Values.commandsPort) -}}
{{- end -}}
{{- range $served := (fromYaml (include "paygate.enabledApps" $root)).apps -}}
{{- if $served.commands -}}
{{- $_ := set $data $served.commands (printf "tcp://%s-%s-commands:%v" (include "paygate.fullname" $root) $served.name $root.Values.commandsPort) -}}
{{- end -}}
{{- end -}}
{{- $urls := $root.Values.publicUrls -}}
{{- if eq .app.key "collections" -}}
{{- $_ := set $data "MOMO_API_URL" (include "paygate.providerUrl" (dict "root" $root "key" "momoApiUrl" "route" "momo")) -}}
{{- $_ := set $data "CARD_API_URL" (include "paygate.providerUrl" (dict "root" $root "key" "cardApiUrl" "route" "card")) -}}
{{- $_ := set $data "PROVIDER_CALLBACK_URL" (default (include "paygate.serviceUrl" (dict "root" $root "name" "collections")) $urls.collections) -}}
{{- $_ := set $data "CHECKOUT_RETURN_URL" (default (include "paygate.serviceUrl" (dict "root" $root "name" "api-gateway")) $urls.gateway) -}}
{{- else if eq .app.key "servicePayments" -}}
{{- $_ := set $data "BILLER_API_URL" (include "paygate.providerUrl" (dict "root" $root "key" "billerApiUrl" "route" "biller")) -}}
{{- else if eq .app.key "sandbox" -}}
{{- /* The one private origin the sandbox may call back with ALLOW_PRIVATE_CALLBACKS=false: where collections takes provider callbacks. */ -}}
{{- $_ := set $data "PROVIDER_CALLBACK_URL" (default (include "paygate.serviceUrl" (dict "root" $root "name" "collections")) $urls.collections) -}}
{{- if $urls.sandbox -}}
{{- $_ := set $data "SANDBOX_PUBLIC_URL" $urls.sandbox -}}
{{- end -}}
{{- end -}}
{{- toYaml $data -}}
{{- end -}}
