import { DEFAULT_DATABASE_TIMEOUTS, isDatabaseUnavailable, poolConfig } from '../../db/connection-settings';

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a dropped connection (no SQLSTATE)', new Error('Connection terminated unexpectedly')],
    ['a connect timeout from the pool', new Error('timeout exceeded when trying to connect')],
    [
      'rewritten in place by knex (the statement first)',
      new Error("select * from account where iban = 'DE89' - Connection terminated unexpectedly"),
    ],
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['our statement_timeout', Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })],
    ['our lock_timeout', Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' })],
    ['a server shutting down', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['a connection exception class 08', Object.assign(new Error('connection failure'), { code: '08006' })],
    [
      'wrapped by MikroORM',
      Object.assign(new Error('select … - Connection terminated unexpectedly'), {
        previous: new Error('Connection terminated unexpectedly'),
      }),
    ],
    [
      "knex's transaction whose BEGIN failed unseen (cause lost)",
      new Error('Transaction query already complete, run with DEBUG=knex:tx for more info'),
    ],
  ])('%s: yes', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['bad data', Object.assign(new Error('invalid input syntax'), { code: '22P02' })],
    ['our own refusal', Object.assign(new Error('insufficient funds'), { code: 'PP002' })],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'Connection terminated'],
  ])('%s: no', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('poolConfig', () => {
  it('sets every timeout and keep-alive', () => {
    const config = poolConfig('postgres://db/x', 7, { ...DEFAULT_DATABASE_TIMEOUTS, statementTimeoutMs: 1234 });
    expect(config).toMatchObject({
      max: 7,
      connectionTimeoutMillis: DEFAULT_DATABASE_TIMEOUTS.connectTimeoutMs,
      statement_timeout: 1234,
      lock_timeout: DEFAULT_DATABASE_TIMEOUTS.lockTimeoutMs,
      idle_in_transaction_session_timeout: DEFAULT_DATABASE_TIMEOUTS.idleInTransactionTimeoutMs,
      keepAlive: true,
    });
    expect(config.query_timeout).toBeGreaterThan(1234);
  });
});
