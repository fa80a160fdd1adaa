import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Registry } from 'prom-client';
import { createApiMetrics } from '../../api/metrics/api-metrics';
import { createLogger } from '../../core/logger';
import { railDeclarationProblems, railsKnownTo } from '../../core/rails';
import { loadSettings } from '../../core/settings';
import { createWorkerMetrics } from '../../worker/metrics';

/**
 * No Docker engine runs here, so docker-compose.yml and deploy/ are checked by reading them: they
 * parse, they point at each other consistently, and the dashboard asks only for metrics that exist.
 */
const root = path.resolve(__dirname, '../..');
// js-yaml (a devDependency, without types): the test only reads with it.
const { load: parseYaml } = createRequire(__filename)('js-yaml') as { load(this: void, text: string): unknown };

const readYaml = (file: string): any => parseYaml(fs.readFileSync(path.join(root, file), 'utf8')); // eslint-disable-line @typescript-eslint/no-explicit-any
const readJson = (file: string): any => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8')); // eslint-disable-line @typescript-eslint/no-explicit-any

const compose = readYaml('docker-compose.yml');
const prometheus = readYaml('deploy/prometheus/prometheus.yml');
const datasources = readYaml('deploy/grafana/provisioning/datasources/prometheus.yml');
const dashboardProviders = readYaml('deploy/grafana/provisioning/dashboards/partner-payments.yml');
const dashboard = readJson('deploy/grafana/dashboards/partner-payments.json');

/**
 * The Temporal SDK's own metrics (1.24.0, Prometheus exporter, no `_total` suffix), as its
 * exporter lists them: the native core defines them, so no registry of ours can tell.
 */
const TEMPORAL_SDK_METRICS = [
  'temporal_activity_execution_latency',
  'temporal_activity_schedule_to_start_latency',
  'temporal_activity_succeed_endtoend_latency',
  'temporal_local_activity_execution_latency',
  'temporal_workflow_task_execution_latency',
  'temporal_workflow_task_replay_latency',
  'temporal_workflow_task_schedule_to_start_latency',
  'temporal_workflow_endtoend_latency',
].flatMap((histogram) => [`${histogram}_bucket`, `${histogram}_sum`, `${histogram}_count`]);
const TEMPORAL_SDK_GAUGES_AND_COUNTERS = [
  'temporal_worker_task_slots_available',
  'temporal_worker_task_slots_used',
  'temporal_num_pollers',
  'temporal_sticky_cache_size',
  'temporal_workflow_completed',
  'temporal_workflow_failed',
  'temporal_request',
  'temporal_request_failure',
];

/** Every series name a registry of ours exposes (histograms as their _bucket, _sum and _count). */
function seriesNames(registry: Registry): string[] {
  return registry
    .getMetricsAsArray()
    .flatMap((metric) =>
      String(metric.type) === 'histogram' ? ['_bucket', '_sum', '_count'].map((suffix) => metric.name + suffix) : [metric.name],
    );
}

const apiMetrics = createApiMetrics({
  // Never queried: the gauges read Postgres only when scraped.
  readPool: {} as Parameters<typeof createApiMetrics>[0]['readPool'],
  log: createLogger('deploy-config-test', 'error'),
});
const workerMetrics = createWorkerMetrics({ simulatedRails: [] });
const KNOWN_METRICS = new Set([
  ...seriesNames(apiMetrics.registry),
  ...seriesNames(workerMetrics.registry),
  ...TEMPORAL_SDK_METRICS,
  ...TEMPORAL_SDK_GAUGES_AND_COUNTERS,
]);

/** PromQL's own words that the dashboard uses; anything else in an expression must be a metric. */
const PROMQL_WORDS = new Set([
  'sum',
  'max',
  'min',
  'avg',
  'count',
  'rate',
  'irate',
  'increase',
  'histogram_quantile',
  'time',
  'by',
  'without',
]);

/** The metric names an expression reads: strings, label matchers, ranges and grouping labels removed. */
function metricNamesIn(expression: string): string[] {
  const stripped = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without)\s*\([^)]*\)/g, '');
  return (stripped.match(/[A-Za-z_:][A-Za-z0-9_:]*/g) ?? []).filter((word) => !PROMQL_WORDS.has(word));
}

interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { uid: string };
  targets?: { expr: string; datasource?: { uid: string } }[];
}
const panels = dashboard.panels as Panel[];
const expressions = panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })));

describe('deploy/ and docker-compose.yml', () => {
  it('parse, and name one dashboard with unique panel ids', () => {
    expect(dashboard.uid).toBe('partner-payments');
    expect(new Set(panels.map((panel) => panel.id)).size).toBe(panels.length);
    expect(expressions.length).toBeGreaterThan(10);
  });

  it('ask the dashboard only for metrics the code (or the Temporal SDK) defines', () => {
    const unknown = expressions.flatMap(({ panel, expr }) =>
      metricNamesIn(expr)
        .filter((name) => !KNOWN_METRICS.has(name))
        .map((name) => `${panel}: ${name}`),
    );
    expect(unknown).toEqual([]);
    for (const { expr } of expressions) expect(metricNamesIn(expr).length).toBeGreaterThan(0);
  });

  it('the metric-name check itself catches a misspelt metric and ignores labels and functions', () => {
    expect(metricNamesIn('sum by (route) (rate(payments_http_request_total{code!="P404"}[5m]))')).toEqual(['payments_http_request_total']);
    expect(KNOWN_METRICS.has('payments_http_request_total')).toBe(false);
    expect(KNOWN_METRICS.has('payments_http_requests_total')).toBe(true);
    expect(KNOWN_METRICS.has('payments_http_request_duration_seconds_bucket')).toBe(true);
  });

  it.each([
    ['requests', 'payments_http_requests_total'],
    ['latency', 'payments_http_request_duration_seconds_bucket'],
    ['operations by status', 'payments_operations'],
    ['held funds', 'payments_funds_held'],
    ['workflow task latency', 'temporal_workflow_task_schedule_to_start_latency_bucket'],
    ['reconciliation findings', 'payments_reconciliation_findings'],
  ])('show %s (%s)', (_what, metric) => {
    expect(expressions.some(({ expr }) => metricNamesIn(expr).includes(metric))).toBe(true);
  });

  it('point every panel at the provisioned Prometheus data source', () => {
    const [source] = datasources.datasources;
    expect(source).toMatchObject({ type: 'prometheus', url: 'http://prometheus:9090' });
    for (const panel of panels.filter((each) => each.type !== 'row')) {
      expect(panel.datasource?.uid).toBe(source.uid);
      for (const target of panel.targets ?? []) expect(target.datasource?.uid).toBe(source.uid);
    }
  });

  it('mount what the provisioning expects, from files that exist', () => {
    const grafana = compose.services.grafana;
    const mounts = (grafana.volumes as string[]).map((volume) => volume.split(':'));
    const dashboardsMount = mounts.find(([, target]) => target === dashboardProviders.providers[0].options.path);
    expect(dashboardsMount?.[0]).toBe('./deploy/grafana/dashboards');
    expect(mounts.some(([source, target]) => source === './deploy/grafana/provisioning' && target === '/etc/grafana/provisioning')).toBe(
      true,
    );
    const prometheusMount = (compose.services.prometheus.volumes as string[]).map((volume) => volume.split(':'));
    expect(
      prometheusMount.some(
        ([source, target]) => source === './deploy/prometheus/prometheus.yml' && target === '/etc/prometheus/prometheus.yml',
      ),
    ).toBe(true);
    for (const [source] of [...mounts, ...prometheusMount]) {
      if (source!.startsWith('./')) expect(fs.existsSync(path.join(root, source!))).toBe(true);
    }
  });

  it('scrape the ports the API and the worker listen on', () => {
    const portOf = (job: string) =>
      prometheus.scrape_configs.find((config: { job_name: string }) => config.job_name === job).dns_sd_configs[0];
    expect(portOf('api')).toMatchObject({ names: ['api'], port: Number(compose.services.api.environment.API_METRICS_PORT) });
    expect(portOf('worker')).toMatchObject({ names: ['worker'], port: Number(compose.services.worker.environment.WORKER_HTTP_PORT) });
    expect(portOf('worker-temporal-sdk')).toMatchObject({
      names: ['worker'],
      port: Number(compose.services.worker.environment.WORKER_METRICS_PORT),
    });
  });

  it("keep the API's /metrics off the partners' port and unpublished", () => {
    const { api } = compose.services;
    expect(api.environment.API_METRICS_PORT).not.toBe(api.environment.PORT);
    const published = (api.ports as string[]).map((port) => port.split(':').at(-1));
    expect(published).toEqual([api.environment.PORT]);
  });

  it('check the API and the worker with their readiness endpoints', () => {
    expect(compose.services.api.healthcheck.test.join(' ')).toContain(
      `http://127.0.0.1:${compose.services.api.environment.PORT}/health/ready`,
    );
    expect(compose.services.worker.healthcheck.test.join(' ')).toContain(
      `http://127.0.0.1:${compose.services.worker.environment.WORKER_HTTP_PORT}/health/ready`,
    );
  });

  it('name in SIMULATED_RAILS every rail the worker and the API would simulate with the defaults, and nothing real', () => {
    /** `${NAME:-default}` → default, `${NAME:?message}` → a placeholder (required, set by whoever runs compose). */
    const resolved = (environment: Record<string, string>): Record<string, string> =>
      Object.fromEntries(
        Object.entries(environment).map(([name, value]) => [
          name,
          String(value)
            .replace(/\$\{\w+:-([^}]*)\}/g, '$1')
            .replace(/\$\{\w+:\?[^}]*\}/g, ''),
        ]),
      );
    for (const role of ['worker', 'api'] as const) {
      const settings = loadSettings(resolved(compose.services[role].environment), root);
      expect(settings.acceptedSimulatedRails.length).toBeGreaterThan(0);
      expect(railDeclarationProblems(railsKnownTo(settings, role), settings.acceptedSimulatedRails)).toEqual([]);
    }
    expect(compose.services.api.environment.SIMULATED_RAILS).toBe(compose.services.worker.environment.SIMULATED_RAILS);
  });

  it('give the payload keys and the codec token as files (compose secrets), never as an environment value', () => {
    const files = { PAYLOAD_ENCRYPTION_KEYS: 'payload_encryption_keys', CODEC_ENDPOINT_TOKEN: 'codec_endpoint_token' } as const;
    for (const [name, service] of Object.entries(
      compose.services as Record<string, { environment?: Record<string, string>; secrets?: string[] }>,
    )) {
      for (const [variable, secret] of Object.entries(files)) {
        expect([name, service.environment?.[variable]]).toEqual([name, undefined]);
        const file = service.environment?.[`${variable}_FILE`];
        if (file === undefined) continue;
        expect(file).toBe(`/run/secrets/${secret}`);
        expect(service.secrets).toContain(secret);
        expect(compose.secrets[secret]).toEqual({ environment: variable });
      }
    }
    for (const name of ['api', 'worker', 'codec']) expect(compose.services[name].environment.PAYLOAD_ENCRYPTION_KEYS_FILE).toBeDefined();
    expect(compose.services.codec.environment.CODEC_ENDPOINT_TOKEN_FILE).toBeDefined();
  });

  it('give the deposit seeds, as files, to the sweeper alone, which serves a task queue of its own', () => {
    const seeds = ['EVM', 'BTC', 'LTC', 'DOGE'].map(
      (family) => [`${family}_DEPOSIT_SEED`, `${family.toLowerCase()}_deposit_seed`] as const,
    );
    for (const [name, service] of Object.entries(
      compose.services as Record<string, { environment?: Record<string, string>; secrets?: string[] }>,
    )) {
      const given = seeds.filter(
        ([variable, secret]) =>
          service.environment?.[variable] !== undefined ||
          service.environment?.[`${variable}_FILE`] !== undefined ||
          service.secrets?.includes(secret),
      );
      expect([name, given.length]).toEqual([name, name === 'sweeper' ? seeds.length : 0]);
    }
    const { sweeper } = compose.services;
    expect(sweeper.command).toEqual(['npm', 'run', 'sweeper']);
    for (const [variable, secret] of seeds) {
      expect(sweeper.environment[`${variable}_FILE`]).toBe(`/run/secrets/${secret}`);
      expect(compose.secrets[secret]).toEqual({ environment: variable });
    }
    expect(sweeper.environment.TEMPORAL_SWEEPER_TASK_QUEUE).not.toBe(compose.services.worker.environment.TEMPORAL_TASK_QUEUE);
    expect(roleOf(sweeper.environment.DATABASE_URL)).toBe('payments_app');
  });

  it('run the migrations as a step of their own, as payments_migrator, before any API or worker starts', () => {
    const { migrate, api, worker } = compose.services;
    expect(migrate.command).toEqual(['npm', 'run', 'migrate']);
    expect(migrate.restart).toBe('no');
    expect(roleOf(migrate.environment.DATABASE_MIGRATOR_URL)).toBe('payments_migrator');
    expect(roleOf(migrate.environment.DATABASE_ADMIN_URL)).toBe(compose.services.postgres.environment.POSTGRES_USER);
    for (const service of [api, worker]) expect(service.depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
  });

  it('connect the API and the worker as payments_app, and give no other service the schema owner or the superuser', () => {
    for (const name of ['api', 'worker']) expect(roleOf(compose.services[name].environment.DATABASE_URL)).toBe('payments_app');
    const holders = Object.entries(compose.services as Record<string, { environment?: Record<string, string> }>)
      .filter(([, service]) => Object.keys(service.environment ?? {}).some((variable) => /^DATABASE_(ADMIN|MIGRATOR)_URL$/.test(variable)))
      .map(([name]) => name);
    expect(holders).toEqual(['migrate']);
  });

  it('run the operator CLI on demand as payments_ops, the role migrate makes for it, with the two-person rule by OS account', () => {
    const { ops, migrate } = compose.services;
    expect(ops.profiles).toEqual(['ops']);
    expect(roleOf(ops.environment.DATABASE_URL)).toBe('payments_ops');
    expect(roleOf(migrate.environment.DATABASE_OPS_URL)).toBe('payments_ops');
    expect(ops.environment.MANUAL_CREDIT_APPROVAL_OS_USERS).toBe('distinct');
    const operatorSettings = Object.entries(compose.services as Record<string, { environment?: Record<string, string> }>)
      .filter(([, service]) => Object.keys(service.environment ?? {}).some((variable) => variable.startsWith('MANUAL_CREDIT_')))
      .map(([name]) => name);
    expect(operatorSettings).toEqual(['ops']);
  });

  it('give Temporal a role and databases of its own, created by the init script the postgres image runs', () => {
    const { postgres, temporal } = compose.services;
    const role = temporal.environment.POSTGRES_USER as string;
    expect([postgres.environment.POSTGRES_USER, 'payments_app', 'payments_migrator']).not.toContain(role);
    const databases = [temporal.environment.DBNAME, temporal.environment.VISIBILITY_DBNAME];
    expect(databases).not.toContain(postgres.environment.POSTGRES_DB);
    expect(temporal.environment.SKIP_DB_CREATE).toBe('true');
    const mount = (postgres.volumes as string[])
      .map((volume) => volume.split(':'))
      .find(([, target]) => target?.startsWith('/docker-entrypoint-initdb.d/'));
    expect(mount?.[0]).toBe('./deploy/postgres/init-temporal.sh');
    const script = fs.readFileSync(path.join(root, mount![0]!), 'utf8');
    expect(script).toContain(`create role ${role} login nosuperuser nocreatedb nocreaterole`);
    for (const database of databases) expect(script).toContain(`create database ${database} owner ${role};`);
    expect(script).toContain(`revoke all on database ${postgres.environment.POSTGRES_DB} from public;`);
  });

  it('keep the Temporal frontend on the compose network, and the Web UI read-only', () => {
    expect(compose.services.temporal.ports).toBeUndefined();
    const ui = compose.services['temporal-ui'].environment;
    for (const variable of [
      'TEMPORAL_DISABLE_WRITE_ACTIONS',
      'TEMPORAL_WORKFLOW_TERMINATE_DISABLED',
      'TEMPORAL_WORKFLOW_CANCEL_DISABLED',
      'TEMPORAL_WORKFLOW_SIGNAL_DISABLED',
      'TEMPORAL_WORKFLOW_UPDATE_DISABLED',
      'TEMPORAL_WORKFLOW_RESET_DISABLED',
      'TEMPORAL_BATCH_ACTIONS_DISABLED',
      'TEMPORAL_START_WORKFLOW_DISABLED',
      'TEMPORAL_ACTIVITY_COMMANDS_DISABLED',
    ])
      expect([variable, ui[variable]]).toEqual([variable, 'true']);
    for (const port of compose.services['temporal-ui'].ports as string[]) expect(port.startsWith('127.0.0.1:')).toBe(true);
  });
});

/** The user of a postgres:// URL whose password is a compose variable (`${…}`). */
function roleOf(url: string): string {
  const match = /^postgres:\/\/([^:@/]+)[:@]/.exec(url);
  if (!match) throw new Error(`not a postgres URL with a user: ${url}`);
  return match[1]!;
}
