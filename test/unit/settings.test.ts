import { DEFAULT_DATABASE_TIMEOUTS } from '../../core/database-timeouts';
import { DEFAULT_EUR_RATES, parseRateTable } from '../../core/rates';
import { InvalidSettingsError, loadSettings } from '../../core/settings';

describe('settings', () => {
  it('defaults to port 3000, the local data folder and no external services', () => {
    const settings = loadSettings({}, '/srv/app');
    expect(settings).toMatchObject({
      port: 3000,
      databaseUrl: undefined,
      temporalAddress: undefined,
      temporalNamespace: 'default',
      temporalTaskQueue: 'partner-payments',
      operationResponseTimeoutMs: 30_000,
      defaultFeePercentage: '1',
      maxBodyBytes: 65_536,
      rateLimitPerSecond: 50,
      rateLimitBurst: 200,
      rateLimitWritesPerSecond: 10,
      rateLimitWritesBurst: 50,
      authFailureLimitPerSecond: 5,
      authFailureBurst: 100,
      authFailureProcessLimitPerSecond: 100,
      trustProxy: false,
      apiMetrics: { port: 9464, host: '127.0.0.1' },
      logLevel: 'info',
      travelRuleDeadlineMs: 86_400_000,
      travelRuleThresholdEur: '1000',
      denyListedAddresses: [],
    });
    expect(settings.eurRates).toEqual(DEFAULT_EUR_RATES);
  });

  it("gives every pool the database timeouts' defaults, the same whether or not the pool was opened with settings", () => {
    const expected = {
      connectTimeoutMs: 5_000,
      statementTimeoutMs: 30_000,
      lockTimeoutMs: 10_000,
      idleInTransactionTimeoutMs: 60_000,
      keepAliveInitialDelayMs: 10_000,
    };
    expect(loadSettings({}, '/').databaseTimeouts).toEqual(expected);
    expect(DEFAULT_DATABASE_TIMEOUTS).toEqual(expected);
  });

  it("gives the sweeper a task queue of its own, never the worker's", () => {
    expect(loadSettings({}, '/').temporalSweeperTaskQueue).toBe('partner-payments-sweeper');
    expect(loadSettings({ TEMPORAL_TASK_QUEUE: 'payments' }, '/').temporalSweeperTaskQueue).toBe('payments-sweeper');
    expect(loadSettings({ TEMPORAL_SWEEPER_TASK_QUEUE: 'keys' }, '/').temporalSweeperTaskQueue).toBe('keys');
    expect(() => loadSettings({ TEMPORAL_TASK_QUEUE: 'one', TEMPORAL_SWEEPER_TASK_QUEUE: 'one' }, '/')).toThrow(
      'TEMPORAL_SWEEPER_TASK_QUEUE must differ from TEMPORAL_TASK_QUEUE (both one)',
    );
  });

  it('keeps development-only settings apart, with their defaults', () => {
    expect(loadSettings({}, '/srv/app').development).toEqual({
      // Loopback: npm start serves a funded demo partner.
      host: '127.0.0.1',
      dataDir: '/srv/app/.data',
      embeddedPostgresPort: 54320,
      temporalCliPath: undefined,
      temporalPort: 7233,
      temporalUiPort: 8233,
      chainConfirmationDelayMs: 5_000,
      bankSettlementDelayMs: 5_000,
      bankRejectIbans: [],
      chain: 'local-evm',
      evmNodePort: 8545,
      evmNodePolygonPort: 8546,
      utxoNodeBitcoinPort: 18443,
      utxoNodeLitecoinPort: 19443,
      btcdPath: undefined,
      litecoindPath: undefined,
      // Apart from its worker's 9464 and 9465.
      apiMetrics: { port: 9466, host: '127.0.0.1' },
      listenHosts: { api: '127.0.0.1', apiMetrics: '127.0.0.1', worker: '127.0.0.1', codec: '127.0.0.1' },
    });
  });

  it('reads every override from the environment', () => {
    const settings = loadSettings(
      {
        PORT: '8080',
        DATABASE_URL: 'postgres://db/x',
        DATABASE_MIGRATOR_URL: 'postgres://payments_migrator:m@db/x',
        DATABASE_ADMIN_URL: 'postgres://postgres:a@db/x',
        DATABASE_READ_URL: 'postgresql://replica/x',
        TEMPORAL_ADDRESS: 'temporal:7233',
        TEMPORAL_NAMESPACE: 'payments',
        TEMPORAL_TASK_QUEUE: 'payments-queue',
        OPERATION_RESPONSE_TIMEOUT_MS: '1500',
        EXCHANGE_RATES_JSON: '{"btc":"90000.5"}',
        DEFAULT_FEE_PERCENTAGE: '0.25',
        MAX_BODY_BYTES: '1024',
        RATE_LIMIT_PER_SECOND: '0',
        RATE_LIMIT_BURST: '10',
        AUTH_FAILURE_LIMIT_PER_SECOND: '0',
        AUTH_FAILURE_BURST: '20',
        TRUST_PROXY: 'true',
        API_METRICS_PORT: '9100',
        API_METRICS_HOST: '10.0.0.5',
        LOG_LEVEL: 'warn',
        TRAVEL_RULE_DEADLINE_MS: '4000',
        TRAVEL_RULE_THRESHOLD_EUR: '999.99',
        DENY_LIST_ADDRESSES: ' 0xdead , ,0xbeef ',
      },
      '/srv/app',
    );
    expect(settings).toMatchObject({
      port: 8080,
      databaseUrl: 'postgres://db/x',
      databaseMigratorUrl: 'postgres://payments_migrator:m@db/x',
      databaseAdminUrl: 'postgres://postgres:a@db/x',
      databaseReadUrl: 'postgresql://replica/x',
      temporalAddress: 'temporal:7233',
      temporalNamespace: 'payments',
      temporalTaskQueue: 'payments-queue',
      operationResponseTimeoutMs: 1500,
      defaultFeePercentage: '0.25',
      maxBodyBytes: 1024,
      rateLimitPerSecond: 0,
      rateLimitBurst: 10,
      authFailureLimitPerSecond: 0,
      authFailureBurst: 20,
      trustProxy: true,
      apiMetrics: { port: 9100, host: '10.0.0.5' },
      logLevel: 'warn',
      travelRuleDeadlineMs: 4000,
      travelRuleThresholdEur: '999.99',
      denyListedAddresses: ['0xdead', '0xbeef'],
    });
    expect(settings.eurRates.btc).toBe('90000.5');
    expect(settings.eurRates.eth).toBe(DEFAULT_EUR_RATES.eth);
  });

  it('reads the development overrides', () => {
    const { development } = loadSettings(
      {
        DATA_DIR: 'tmp/data',
        EMBEDDED_POSTGRES_PORT: '5433',
        TEMPORAL_CLI_PATH: '/opt/temporal',
        TEMPORAL_PORT: '7300',
        TEMPORAL_UI_PORT: '8300',
        CHAIN_CONFIRMATION_DELAY_MS: '0',
        BANK_SETTLEMENT_DELAY_MS: '250',
        SIMULATED_BANK_REJECT_IBANS: 'FR7630006000011234567890189,DE89370400440532013000',
        CHAIN: 'simulated',
        EVM_NODE_PORT: '8600',
        EVM_NODE_PORT_POLYGON: '8601',
        UTXO_NODE_PORT_BITCOIN: '18600',
        UTXO_NODE_PORT_LITECOIN: '19600',
        HOST: '0.0.0.0',
      },
      '/srv/app',
    );
    expect(development).toEqual({
      host: '0.0.0.0',
      dataDir: '/srv/app/tmp/data',
      embeddedPostgresPort: 5433,
      temporalCliPath: '/opt/temporal',
      temporalPort: 7300,
      temporalUiPort: 8300,
      chainConfirmationDelayMs: 0,
      bankSettlementDelayMs: 250,
      bankRejectIbans: ['FR7630006000011234567890189', 'DE89370400440532013000'],
      chain: 'simulated',
      evmNodePort: 8600,
      evmNodePolygonPort: 8601,
      utxoNodeBitcoinPort: 18600,
      utxoNodeLitecoinPort: 19600,
      btcdPath: undefined,
      litecoindPath: undefined,
      apiMetrics: { port: 9466, host: '0.0.0.0' },
      listenHosts: { api: '0.0.0.0', apiMetrics: '0.0.0.0', worker: '0.0.0.0', codec: '0.0.0.0' },
    });
  });

  it("serves the API's /metrics on API_METRICS_PORT wherever it is set, npm start included; 0 turns the listener off", () => {
    const set = loadSettings({ API_METRICS_PORT: '9500' }, '/');
    expect(set.apiMetrics).toEqual({ port: 9500, host: '127.0.0.1' });
    expect(set.development.apiMetrics).toEqual({ port: 9500, host: '127.0.0.1' });
    const off = loadSettings({ API_METRICS_PORT: '0' }, '/');
    expect(off.apiMetrics).toBeUndefined();
    expect(off.development.apiMetrics).toBeUndefined();
  });

  it("reads the worker's listeners: the SDK's exporter on 9464, health and metrics on 9465; 0 turns either off", () => {
    expect(loadSettings({}, '/').workerObservability).toEqual({ sdkMetricsPort: 9464, httpPort: 9465, host: '0.0.0.0' });
    expect(loadSettings({ WORKER_METRICS_PORT: '0', WORKER_HTTP_PORT: '9475' }, '/').workerObservability).toEqual({
      sdkMetricsPort: 0,
      httpPort: 9475,
      host: '0.0.0.0',
    });
    expect(() => loadSettings({ WORKER_HTTP_PORT: 'health' }, '/')).toThrow(
      'WORKER_HTTP_PORT must be a port number from 0 (off) to 65535, got "health"',
    );
    expect(() => loadSettings({ WORKER_METRICS_PORT: '65536' }, '/')).toThrow(
      'WORKER_METRICS_PORT must be a port number from 0 (off) to 65535',
    );
  });

  it('binds production listeners as before HOST existed: the API and the worker on every interface, the metrics and codec on loopback', () => {
    const settings = loadSettings({}, '/');
    expect(settings.host).toBe('0.0.0.0');
    expect(settings.workerObservability.host).toBe('0.0.0.0');
    expect(settings.apiMetrics?.host).toBe('127.0.0.1');
    expect(settings.codecEndpoint.host).toBe('127.0.0.1');
    // HOST is npm start's: a production entry does not read it.
    const withHost = loadSettings({ HOST: '10.1.2.3' }, '/');
    expect([withHost.host, withHost.workerObservability.host, withHost.apiMetrics?.host, withHost.codecEndpoint.host]).toEqual([
      '0.0.0.0',
      '0.0.0.0',
      '127.0.0.1',
      '127.0.0.1',
    ]);
  });

  it("binds npm start's listeners to HOST, loopback by default; a listener's own *_HOST wins everywhere", () => {
    expect(loadSettings({}, '/').development.listenHosts).toEqual({
      api: '127.0.0.1',
      apiMetrics: '127.0.0.1',
      worker: '127.0.0.1',
      codec: '127.0.0.1',
    });
    expect(loadSettings({ HOST: '::' }, '/').development.listenHosts).toEqual({ api: '::', apiMetrics: '::', worker: '::', codec: '::' });
    const own = loadSettings(
      { HOST: '0.0.0.0', API_HOST: '10.0.0.7', API_METRICS_HOST: '10.0.0.8', WORKER_HOST: '::1', CODEC_HOST: '127.0.0.2' },
      '/',
    );
    expect(own.development.listenHosts).toEqual({ api: '10.0.0.7', apiMetrics: '10.0.0.8', worker: '::1', codec: '127.0.0.2' });
    expect(own.development.apiMetrics).toEqual({ port: 9466, host: '10.0.0.8' });
    expect([own.host, own.apiMetrics?.host, own.workerObservability.host, own.codecEndpoint.host]).toEqual([
      '10.0.0.7',
      '10.0.0.8',
      '::1',
      '127.0.0.2',
    ]);
  });

  it.each(['localhost', '0.0.0.0:3000', '256.1.1.1', 'eth0'])('refuses HOST=%s: an interface is an IP address', (host) => {
    expect(() => loadSettings({ HOST: host }, '/')).toThrow(
      `HOST must be an IP address to listen on, such as 127.0.0.1 (this machine only), 0.0.0.0 or :: (every interface), got "${host}"`,
    );
    expect(() => loadSettings({ API_HOST: host }, '/')).toThrow('API_HOST must be an IP address to listen on');
    expect(() => loadSettings({ WORKER_HOST: host }, '/')).toThrow('WORKER_HOST must be an IP address to listen on');
  });

  it('sends on no EVM network until its RPC URL is set, then needs its chain id and hot wallet key', () => {
    expect(loadSettings({}, '/').evmNetworks).toEqual({});
    const key = `0x${'ab'.repeat(32)}`;
    const settings = loadSettings(
      {
        EVM_RPC_URL_ETHEREUM: 'https://rpc.example/v3/secret-project',
        EVM_CHAIN_ID_ETHEREUM: '1',
        EVM_HOT_WALLET_KEY_ETHEREUM: key,
        EVM_USDC_ADDRESS_ETHEREUM: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
        EVM_CONFIRMATIONS_ETHEREUM: '3',
        EVM_DEPOSIT_CONFIRMATIONS_ETHEREUM: '5',
        EVM_TOKEN_TRANSFER_GAS_LIMIT_ETHEREUM: '120000',
        EVM_REPLACE_AFTER_MS: '60000',
      },
      '/',
    );
    expect(settings.evmNetworks).toEqual({
      ethereum: {
        rpcUrl: 'https://rpc.example/v3/secret-project',
        chainId: 1,
        hotWalletPrivateKey: key,
        requiredConfirmations: 3,
        replaceAfterMs: 60_000,
        usdcTokenAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
        tokenTransferGasLimit: 120_000,
        maxFeePerGasCapWei: 500_000_000_000n,
        depositConfirmations: 5,
        depositPollIntervalMs: 4_000,
      },
    });

    let error: unknown;
    try {
      loadSettings({ EVM_RPC_URL_POLYGON: 'http://127.0.0.1:8545', EVM_HOT_WALLET_KEY_ETHEREUM: 'not-a-key-secret-value' }, '/');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidSettingsError);
    const message = (error as Error).message;
    expect(message).toContain('EVM_HOT_WALLET_KEY_ETHEREUM must be 0x followed by 64 hex digits');
    expect(message).not.toContain('not-a-key-secret-value');
  });

  it('requires the chain id and key of a network whose RPC URL is set', () => {
    expect(() => loadSettings({ EVM_RPC_URL_POLYGON: 'http://127.0.0.1:8545' }, '/')).toThrow(
      /EVM_CHAIN_ID_POLYGON is required when EVM_RPC_URL_POLYGON is set[\s\S]*EVM_HOT_WALLET_KEY_POLYGON is required[\s\S]*EVM_USDC_ADDRESS_POLYGON is required/,
    );
  });

  it('reads the operator CLI settings: no approval threshold and no operator name unless set', () => {
    expect(loadSettings({}, '/').operatorCli).toEqual({
      operator: undefined,
      manualCreditApprovalAboveEur: undefined,
      manualCreditApprovalOsUsers: 'distinct',
    });
    expect(
      loadSettings({ OPS_OPERATOR: ' alice ', MANUAL_CREDIT_APPROVAL_ABOVE_EUR: '10000', MANUAL_CREDIT_APPROVAL_OS_USERS: 'shared' }, '/')
        .operatorCli,
    ).toEqual({ operator: 'alice', manualCreditApprovalAboveEur: '10000', manualCreditApprovalOsUsers: 'shared' });
  });

  it.each([
    ['MANUAL_CREDIT_APPROVAL_ABOVE_EUR', '1e4', 'MANUAL_CREDIT_APPROVAL_ABOVE_EUR must be a plain decimal such as 10000, got "1e4"'],
    ['MANUAL_CREDIT_APPROVAL_ABOVE_EUR', '-1', 'MANUAL_CREDIT_APPROVAL_ABOVE_EUR must be a plain decimal'],
    ['OPS_OPERATOR', 'al\u0007ice', 'OPS_OPERATOR must not contain control characters'],
    ['OPS_OPERATOR', '   ', 'OPS_OPERATOR must not be blank'],
    ['MANUAL_CREDIT_APPROVAL_OS_USERS', 'nobody', 'MANUAL_CREDIT_APPROVAL_OS_USERS must be one of distinct, shared'],
    ['OPS_OPERATOR', 'x'.repeat(201), 'OPS_OPERATOR must be at most 200 characters'],
  ])('refuses %s=%j', (variable, value, message) => {
    expect(() => loadSettings({ [variable]: value }, '/')).toThrow(message);
  });

  it('treats an empty variable as unset', () => {
    const settings = loadSettings({ PORT: '', LOG_LEVEL: '', DATABASE_URL: '', TRAVEL_RULE_THRESHOLD_EUR: '' }, '/');
    expect(settings).toMatchObject({ port: 3000, logLevel: 'info', databaseUrl: undefined, travelRuleThresholdEur: '1000' });
  });

  it.each([
    ['PORT', 'eighty', 'PORT must be a port number from 1 to 65535, got "eighty"'],
    ['PORT', '0', 'PORT must be a port number from 1 to 65535, got "0"'],
    ['PORT', '65536', 'PORT must be a port number from 1 to 65535, got "65536"'],
    ['PORT', '80.5', 'PORT must be a port number'],
    ['PORT', '-1', 'PORT must be a port number'],
    ['EMBEDDED_POSTGRES_PORT', ' 5432', 'EMBEDDED_POSTGRES_PORT must be a port number'],
    ['TEMPORAL_PORT', '1e3', 'TEMPORAL_PORT must be a port number'],
    ['TEMPORAL_UI_PORT', '99999', 'TEMPORAL_UI_PORT must be a port number'],
    ['TRAVEL_RULE_THRESHOLD_EUR', '1e3', 'TRAVEL_RULE_THRESHOLD_EUR must be a plain decimal such as 1000, got "1e3"'],
    ['TRAVEL_RULE_THRESHOLD_EUR', '-1000', 'TRAVEL_RULE_THRESHOLD_EUR must be a plain decimal'],
    ['TRAVEL_RULE_THRESHOLD_EUR', '1,000', 'TRAVEL_RULE_THRESHOLD_EUR must be a plain decimal'],
    ['TRAVEL_RULE_THRESHOLD_EUR', '1000.', 'TRAVEL_RULE_THRESHOLD_EUR must be a plain decimal'],
    ['TRAVEL_RULE_THRESHOLD_EUR', 'Infinity', 'TRAVEL_RULE_THRESHOLD_EUR must be a plain decimal'],
    ['TRAVEL_RULE_DEADLINE_MS', '0', 'TRAVEL_RULE_DEADLINE_MS must be a whole number of milliseconds from 1'],
    ['TRAVEL_RULE_DEADLINE_MS', '1.5', 'TRAVEL_RULE_DEADLINE_MS must be a whole number of milliseconds'],
    [
      'OPERATION_RESPONSE_TIMEOUT_MS',
      '3000000000',
      'OPERATION_RESPONSE_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647',
    ],
    ['CHAIN_CONFIRMATION_DELAY_MS', 'soon', 'CHAIN_CONFIRMATION_DELAY_MS must be a whole number of milliseconds'],
    ['BANK_SETTLEMENT_DELAY_MS', '-5', 'BANK_SETTLEMENT_DELAY_MS must be a whole number of milliseconds'],
    ['MAX_BODY_BYTES', '0', 'MAX_BODY_BYTES must be a number of bytes'],
    ['RATE_LIMIT_PER_SECOND', 'many', 'RATE_LIMIT_PER_SECOND must be a whole number'],
    ['RATE_LIMIT_BURST', '2.5', 'RATE_LIMIT_BURST must be a whole number'],
    ['AUTH_FAILURE_LIMIT_PER_SECOND', '-1', 'AUTH_FAILURE_LIMIT_PER_SECOND must be a whole number from 0 to 1000000'],
    ['AUTH_FAILURE_BURST', '0', 'AUTH_FAILURE_BURST must be a whole number from 1 to 1000000, got "0"'],
    ['TRUST_PROXY', 'maybe', 'TRUST_PROXY must be true or false, got "maybe"'],
    ['API_METRICS_PORT', '65536', 'API_METRICS_PORT must be a port number from 0 (off) to 65535, got "65536"'],
    ['API_METRICS_PORT', 'metrics', 'API_METRICS_PORT must be a port number from 0 (off) to 65535'],
    ['DEFAULT_FEE_PERCENTAGE', '100', 'DEFAULT_FEE_PERCENTAGE must be a plain decimal from 0 to below 100'],
    ['DEFAULT_FEE_PERCENTAGE', '0.12345', 'DEFAULT_FEE_PERCENTAGE must be a plain decimal from 0 to below 100 with at most 4 decimals'],
    ['DEFAULT_FEE_PERCENTAGE', '1%', 'DEFAULT_FEE_PERCENTAGE must be a plain decimal'],
    ['LOG_LEVEL', 'verbose', 'LOG_LEVEL must be one of debug, info, warn, error, got "verbose"'],
    ['LOG_LEVEL', 'INFO', 'LOG_LEVEL must be one of debug, info, warn, error'],
    ['EXCHANGE_RATES_JSON', '{"xrp":"1"}', 'EXCHANGE_RATES_JSON is not a valid rate table (unknown currency in rates: xrp)'],
    ['EXCHANGE_RATES_JSON', '{"btc":"-1"}', 'EXCHANGE_RATES_JSON is not a valid rate table (rate for btc must be a positive decimal)'],
    ['EXCHANGE_RATES_JSON', '{"eur":"2"}', 'EXCHANGE_RATES_JSON is not a valid rate table (the eur rate is 1 by definition)'],
    ['EXCHANGE_RATES_JSON', '{btc: 1}', 'EXCHANGE_RATES_JSON is not a valid rate table'],
    ['EXCHANGE_RATES_JSON', '[]', 'EXCHANGE_RATES_JSON is not a valid rate table'],
    ['TEMPORAL_ADDRESS', 'temporal:0', 'TEMPORAL_ADDRESS must be host:port, such as temporal:7233, got "temporal:0"'],
    ['TEMPORAL_ADDRESS', 'http://temporal:7233', 'TEMPORAL_ADDRESS must be host:port'],
    ['TEMPORAL_NAMESPACE', 'my namespace', 'TEMPORAL_NAMESPACE must be a name without spaces'],
    ['TEMPORAL_TASK_QUEUE', 'queue\u0000', 'TEMPORAL_TASK_QUEUE must be a name without spaces'],
  ])('refuses %s=%j, naming the variable', (variable, value, message) => {
    expect(() => loadSettings({ [variable]: value }, '/')).toThrow(message);
  });

  it('names a database URL it refuses without repeating it (it may carry a password)', () => {
    const attempt = () => loadSettings({ DATABASE_URL: 'mysql://user:secret@db/x' }, '/');
    expect(attempt).toThrow('DATABASE_URL must be a postgres:// or postgresql:// URL');
    expect(attempt).not.toThrow(/secret/);
    expect(() => loadSettings({ DATABASE_READ_URL: 'not a url' }, '/')).toThrow(
      'DATABASE_READ_URL must be a postgres:// or postgresql:// URL',
    );
    for (const variable of ['DATABASE_MIGRATOR_URL', 'DATABASE_ADMIN_URL']) {
      const withPassword = () => loadSettings({ [variable]: 'mysql://root:hunter2@db/x' }, '/');
      expect(withPassword).toThrow(`${variable} must be a postgres:// or postgresql:// URL`);
      expect(withPassword).not.toThrow(/hunter2/);
    }
  });

  it('reports every bad variable at once, one line each', () => {
    let error: unknown;
    try {
      loadSettings({ PORT: 'eighty', TRAVEL_RULE_THRESHOLD_EUR: '1e3', TEMPORAL_UI_PORT: '0' }, '/');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidSettingsError);
    expect((error as InvalidSettingsError).problems).toEqual([
      'PORT must be a port number from 1 to 65535, got "eighty"',
      'TRAVEL_RULE_THRESHOLD_EUR must be a plain decimal such as 1000, got "1e3"',
      'TEMPORAL_UI_PORT must be a port number from 1 to 65535, got "0"',
    ]);
    expect((error as Error).message.split('\n')).toHaveLength(4);
  });

  it.each([
    ['TEMPORAL_ADDRESS', '127.0.0.1:7233'],
    ['TEMPORAL_ADDRESS', '[::1]:7233'],
    ['TEMPORAL_ADDRESS', 'my-ns.a1b2c.tmprl.cloud:7233'],
    // The SDK's default port; names with underscores, as some container networks give them.
    ['TEMPORAL_ADDRESS', 'temporal'],
    ['TEMPORAL_ADDRESS', 'temporal_server:7233'],
    ['TRAVEL_RULE_THRESHOLD_EUR', '0'],
    ['TRAVEL_RULE_THRESHOLD_EUR', '1000.50'],
    ['DEFAULT_FEE_PERCENTAGE', '0'],
    ['DEFAULT_FEE_PERCENTAGE', '99.9999'],
    ['PORT', '65535'],
  ])('accepts %s=%s', (variable, value) => {
    expect(() => loadSettings({ [variable]: value }, '/')).not.toThrow();
  });
});

describe('rate table', () => {
  it('keeps every digit of a rate given as a JSON number', () => {
    expect(parseRateTable('{"btc": 91234.123456789012345678}').btc).toBe('91234.123456789012345678');
  });
});
