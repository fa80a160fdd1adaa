import {
  START_CLUSTER_PORTS,
  TEMPORAL_DATABASE,
  VISIBILITY_DATABASE,
  clusterConfigOverrides,
  clusterDynamicConfig,
  postgresServerOf,
} from '../../dev/temporal-cluster-config';

describe('the Temporal cluster configuration', () => {
  it('takes the Postgres server from a database URL, decoding the user and password', () => {
    expect(postgresServerOf('postgres://pay%40ments:p%3Ass%2Fw0rd@db.internal:6543/partner_payments')).toEqual({
      host: 'db.internal',
      port: 6543,
      user: 'pay@ments',
      password: 'p:ss/w0rd',
    });
    expect(postgresServerOf('postgresql://postgres:postgres@127.0.0.1/partner_payments').port).toBe(5432);
  });

  const postgres = { host: '127.0.0.1', port: 54330, user: 'temporal', password: 's3cret' };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const configOn = (host: string): any =>
    clusterConfigOverrides({ postgres, host, ports: START_CLUSTER_PORTS, dynamicConfigPath: '/data/config/dynamicconfig.yaml' });
  const config = configOn('127.0.0.1');

  it('keeps history and visibility in their own databases on that server', () => {
    const stores = config.persistence.datastores;
    expect(Object.keys(stores)).toEqual(['postgres-default', 'postgres-visibility']);
    expect(stores['postgres-default'].sql).toMatchObject({
      pluginName: 'postgres12',
      databaseName: TEMPORAL_DATABASE,
      connectAddr: '127.0.0.1:54330',
      user: 'temporal',
      password: 's3cret',
    });
    expect(stores['postgres-visibility'].sql).toMatchObject({ databaseName: VISIBILITY_DATABASE, connectAddr: '127.0.0.1:54330' });
  });

  it('binds every service to the ports given on loopback, and the cluster address to the frontend', () => {
    expect(config.services.frontend.rpc).toEqual({
      grpcPort: 7333,
      membershipPort: 7353,
      bindOnLocalHost: false,
      bindOnIP: '127.0.0.1',
      httpPort: 7343,
    });
    expect(config.services.history.rpc.grpcPort).toBe(START_CLUSTER_PORTS.history);
    expect(config.services.matching.rpc.membershipPort).toBe(START_CLUSTER_PORTS.matchingMembership);
    expect(config.services.worker.rpc.grpcPort).toBe(START_CLUSTER_PORTS.internalWorker);
    for (const name of ['frontend', 'history', 'matching', 'worker']) expect(config.services[name].rpc.bindOnIP).toBe('127.0.0.1');
    expect(config.clusterMetadata.clusterInformation.active.rpcAddress).toBe('127.0.0.1:7333');
    expect(config.global.membership).toEqual({ broadcastAddress: '127.0.0.1' });
    expect(config.global.metrics.prometheus.listenAddress).toBe('127.0.0.1:7300');
    expect(config.global.pprof.port).toBe(0);
  });

  it.each([
    ['0.0.0.0', '127.0.0.1', '127.0.0.1:7333', '0.0.0.0:7300'],
    ['::', '::1', '[::1]:7333', '[::]:7300'],
    ['192.168.1.20', '192.168.1.20', '192.168.1.20:7333', '192.168.1.20:7300'],
  ])('on HOST=%s binds every service there; the services meet at %s', (host, reachable, rpcAddress, metrics) => {
    const on = configOn(host);
    for (const name of ['frontend', 'history', 'matching', 'worker']) {
      expect(on.services[name].rpc).toMatchObject({ bindOnLocalHost: false, bindOnIP: host });
    }
    expect(on.global.membership.broadcastAddress).toBe(reachable);
    expect(on.clusterMetadata.clusterInformation.active.rpcAddress).toBe(rpcAddress);
    expect(on.global.metrics.prometheus.listenAddress).toBe(metrics);
  });

  it('turns archival off and points at the dynamic config file', () => {
    expect(config.archival.history).toEqual({ state: 'disabled', enableRead: false, provider: null });
    expect(config.archival.visibility.state).toBe('disabled');
    expect(config.dynamicConfigClient.filepath).toBe('/data/config/dynamicconfig.yaml');
    expect(clusterDynamicConfig()).toContain('frontend.namespaceRPS.visibility:\n  - value: 100');
  });

  it("start:cluster's ports are distinct, clear of npm start's, and fit the server's smallint membership column", () => {
    const ports = Object.values(START_CLUSTER_PORTS);
    expect(new Set(ports).size).toBe(ports.length);
    expect(ports).not.toContain(7233);
    expect(ports).not.toContain(8233);
    expect(Math.max(...ports)).toBeLessThan(32_768);
  });
});
