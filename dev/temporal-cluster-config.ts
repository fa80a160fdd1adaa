/**
 * The Temporal cluster's configuration, pure. The server loads `base.yaml` and then `<env>.yaml`
 * from its config folder, the second overriding the first key by key: base.yaml is the module's
 * own `config/development-postgres12.yaml` as published, and the environment file written here
 * changes only what must differ (the Postgres address and credentials, the interface and the
 * ports, the dynamic config file, no archival, no pprof). JSON is valid YAML, so the overrides are
 * written as JSON.
 */
import { joinHostPort, reachableHost } from '../core/listen-address';

export const CLUSTER_CONFIG_ENV = 'cluster';

/** Every port the server binds, all on one interface (HOST: loopback unless told otherwise). */
export interface TemporalClusterPorts {
  /** Where clients, workers and the API connect (gRPC). */
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  /** The internal worker service (schedules, batch operations), not ours. */
  internalWorker: number;
  /** One ring-membership port per service. */
  frontendMembership: number;
  historyMembership: number;
  matchingMembership: number;
  internalWorkerMembership: number;
  /** The server's Prometheus metrics. */
  metrics: number;
}

/**
 * `npm run start:cluster`'s ports: 7333 and up, clear of `npm start`'s dev server (7233, UI 8233),
 * of the module's defaults (6933-6939, 7233-7243, 7936, 8000) and of the tests' (free ports).
 */
export const START_CLUSTER_PORTS: TemporalClusterPorts = {
  frontend: 7333,
  frontendHttp: 7343,
  history: 7334,
  matching: 7335,
  internalWorker: 7339,
  frontendMembership: 7353,
  historyMembership: 7354,
  matchingMembership: 7355,
  internalWorkerMembership: 7359,
  metrics: 7300,
};

export const TEMPORAL_DATABASE = 'temporal';
export const VISIBILITY_DATABASE = 'temporal_visibility';

/** The Postgres server the cluster keeps its two databases on, from a connection URL of any database there. */
export interface PostgresServer {
  host: string;
  port: number;
  user: string;
  password: string;
}

export function postgresServerOf(databaseUrl: string): PostgresServer {
  const url = new URL(databaseUrl);
  // A bracketed IPv6 host is kept as the server reads it in host:port.
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 5432,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
}

/** The environment file's content: what differs from the module's development-postgres12.yaml. */
export function clusterConfigOverrides(options: {
  postgres: PostgresServer;
  /** The interface every service binds (HOST). */
  host: string;
  ports: TemporalClusterPorts;
  dynamicConfigPath: string;
}): Record<string, unknown> {
  const { postgres, host, ports } = options;
  // Where the services reach each other and the frontend: loopback when they bind every interface.
  const reachable = reachableHost(host);
  const datastore = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${postgres.host}:${postgres.port}`,
      connectProtocol: 'tcp',
      user: postgres.user,
      password: postgres.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  // A service is replaced whole (a map entry), so bindOnLocalHost is off: the two are exclusive.
  const service = (grpcPort: number, membershipPort: number, extra: Record<string, number> = {}) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: false, bindOnIP: host, ...extra },
  });
  const noArchival = { state: 'disabled', enableRead: false, provider: null };
  return {
    // Warnings and errors only: the log goes to a file in the data folder.
    log: { stdout: true, level: 'warn' },
    persistence: {
      // Map entries are replaced whole, so each store is spelled out (sizes as in the module's file).
      datastores: {
        'postgres-default': datastore(TEMPORAL_DATABASE, 20),
        'postgres-visibility': datastore(VISIBILITY_DATABASE, 2),
      },
    },
    global: {
      membership: { broadcastAddress: reachable },
      pprof: { port: 0 },
      metrics: { prometheus: { listenAddress: joinHostPort(host, ports.metrics) } },
    },
    services: {
      frontend: service(ports.frontend, ports.frontendMembership, { httpPort: ports.frontendHttp }),
      history: service(ports.history, ports.historyMembership),
      matching: service(ports.matching, ports.matchingMembership),
      worker: service(ports.internalWorker, ports.internalWorkerMembership),
    },
    clusterMetadata: {
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: joinHostPort(reachable, ports.frontend) },
      },
    },
    archival: { history: noArchival, visibility: noArchival },
    namespaceDefaults: { archival: { history: { state: 'disabled', URI: '' }, visibility: { state: 'disabled', URI: '' } } },
    dynamicConfigClient: { filepath: options.dynamicConfigPath, pollInterval: '10s' },
  };
}

/**
 * The dynamic config file: the server's defaults, but for the visibility rate, raised from 10
 * to 100 per second as the dev server does (the Web UI, the ops CLI and the tests list
 * workflows by search attribute). Search attributes are not forced to refresh on every read as
 * on the dev server: a cluster learns new ones within seconds, and start-up waits for that.
 */
export function clusterDynamicConfig(): string {
  return ['frontend.namespaceRPS.visibility:', '  - value: 100', '    constraints: {}', ''].join('\n');
}
