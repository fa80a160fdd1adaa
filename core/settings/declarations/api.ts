import { setting } from '../setting';
import { flag, integer, milliseconds, optionalIpAddress, optionalPortOrOff, optionalText, port } from '../values';

/** Where `npm run api` serves /metrics unless API_METRICS_PORT says otherwise. */
export const DEFAULT_API_METRICS_PORT = 9464;
/** `npm start`'s default: its worker has 9464 (the Temporal SDK's exporter) and 9465 (health and metrics). */
export const START_API_METRICS_PORT = 9466;
/** A partner sending one operation at a time has one in flight; a bound well above that stops only a flood. */
export const DEFAULT_OPERATIONS_IN_FLIGHT_PER_PARTNER = 50;

/** The HTTP API: its listeners, its limits and how long a request waits for its workflow. */
export const API_SETTINGS = {
  port: setting('PORT', port(3000), 'API port (1–65535)'),
  // No default here: unset, `npm run api` binds every interface and `npm start` HOST (load.ts).
  host: setting('API_HOST', optionalIpAddress(), 'the interface the API listens on', {
    shownDefault: '`0.0.0.0` (`npm start`, `npm run start:cluster`: `HOST`)',
  }),
  operationResponseTimeoutMs: setting(
    'OPERATION_RESPONSE_TIMEOUT_MS',
    milliseconds(30_000, { min: 1 }),
    `how long a POST waits for its workflow's answer; then the API decides the race with a tombstone: the usual answer if the money moved first, else 503 P503 "nothing was moved" (and nothing will be; safe to retry). A third of it (at least 5 s) also bounds the workflow task queue's backlog: past that, new operations are refused at once (admission control, docs/operators.md)`,
  ),
  operationsInFlightPerPartner: setting(
    'OPERATIONS_IN_FLIGHT_PER_PARTNER',
    integer(DEFAULT_OPERATIONS_IN_FLIGHT_PER_PARTNER, { min: 1, max: 100_000 }),
    "a partner's money-moving POSTs waiting for their answer in one API process at most; past it 429 P429 at once, before anything is recorded (admission control, docs/operators.md)",
  ),
  maxBodyBytes: setting(
    'MAX_BODY_BYTES',
    integer(64 * 1024, { min: 1, max: 100 * 1024 * 1024, what: 'a number of bytes' }),
    'request body limit (413 above it)',
  ),
  rateLimitPerSecond: setting(
    'RATE_LIMIT_PER_SECOND',
    integer(50, { max: 1_000_000 }),
    'sustained requests per second per API key and API process; `0` turns limiting off',
  ),
  rateLimitBurst: setting('RATE_LIMIT_BURST', integer(200, { max: 1_000_000 }), 'requests a key may send at once'),
  // Each write starts work the workers must finish (5–30 workflows a second on 2 cores): its own, smaller quota.
  rateLimitWritesPerSecond: setting(
    'RATE_LIMIT_WRITES_PER_SECOND',
    integer(10, { max: 1_000_000 }),
    'sustained requests per second that change something (POST, DELETE, get-lock) per partner, across its keys, per API process; `0` turns this quota off',
  ),
  rateLimitWritesBurst: setting('RATE_LIMIT_WRITES_BURST', integer(50, { max: 1_000_000 }), 'such requests a partner may send at once'),
  // Without a database lookup once the bucket is empty: what makes a flood of made-up keys cheap.
  authFailureLimitPerSecond: setting(
    'AUTH_FAILURE_LIMIT_PER_SECOND',
    integer(5, { max: 1_000_000 }),
    'failed authentications (unknown, revoked or expired keys) a client address gets back per second, per API process, counted by the address (an IPv6 /64) and the wider groups it is in (its /56 and /48, an IPv4 /24; 4 times the budget per level); once one of them has used up its `AUTH_FAILURE_BURST`, keys the process does not know to be active are answered 429 without a database lookup (see [Reads: history pages, API keys](partners.md#reads-history-pages-api-keys)); `0` turns the limit off',
  ),
  authFailureBurst: setting(
    'AUTH_FAILURE_BURST',
    integer(100, { min: 1, max: 1_000_000 }),
    'failed authentications a client address may have at once (1 or more)',
  ),
  authFailureProcessLimitPerSecond: setting(
    'AUTH_FAILURE_PROCESS_LIMIT_PER_SECOND',
    integer(100, { max: 1_000_000 }),
    'lookups of keys the API process does not know to be active, from every client address together, per second (and at once): the most unknown keys can cost the database, however many addresses send them; a key the process knows is served regardless; `0` turns the ceiling off',
  ),
  trustProxy: setting(
    'TRUST_PROXY',
    flag(),
    "`true` behind a proxy that appends the client's address to `X-Forwarded-For`: the API counts that (the last entry) as the client's address instead of the socket's. Never without such a proxy: a client would pick its own address",
  ),
  /** Assembled into `apiMetrics` (and `development.apiMetrics`) by load.ts: port 0 turns the listener off. */
  apiMetrics: {
    // No default here: unset, `npm run api` takes 9464 and `npm start` 9466.
    port: setting(
      'API_METRICS_PORT',
      optionalPortOrOff(),
      "the API's internal listener for `GET /metrics`; `0` turns it off. The worker's defaults are 9464 and 9465: on one machine give each process its own",
      { shownDefault: `\`${DEFAULT_API_METRICS_PORT}\` (\`npm start\`: \`${START_API_METRICS_PORT}\`)` },
    ),
    host: setting(
      'API_METRICS_HOST',
      optionalText(),
      'the interface it listens on: loopback, or an internal one a scraper reaches (docker-compose: `0.0.0.0` in the container, not published); never the public one',
      { shownDefault: '`127.0.0.1` (`npm start`, `npm run start:cluster`: `HOST`)' },
    ),
  },
};
