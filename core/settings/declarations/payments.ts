import { setting } from '../setting';
import { decimal, flag, integer, list, milliseconds, optionalInteger, percentage, rateTable } from '../values';

/** The rules money moves by: rates and fees, the travel rule, refused destinations. */
export const PAYMENT_SETTINGS = {
  eurRates: setting(
    'EXCHANGE_RATES_JSON',
    rateTable(),
    'EUR price per currency, e.g. `{"btc":"90000","eth":"3100.5"}` (known currencies, positive decimals, `eur` is 1)',
    { shownDefault: 'built-in table' },
  ),
  defaultFeePercentage: setting(
    'DEFAULT_FEE_PERCENTAGE',
    percentage('1'),
    'exchange fee of partners created without `--fee-percentage` (0 to below 100, at most 4 decimals)',
  ),
  travelRuleThresholdEur: setting(
    'TRAVEL_RULE_THRESHOLD_EUR',
    decimal('1000', '1000'),
    'above it, NON_CUSTODIAL and OTHER wallets need travel-rule data (a plain decimal: no sign, exponent or separators)',
  ),
  // A Temporal timer, not a Node one: days or weeks are fine.
  travelRuleDeadlineMs: setting(
    'TRAVEL_RULE_DEADLINE_MS',
    milliseconds(24 * 60 * 60 * 1000, { min: 1, max: Number.MAX_SAFE_INTEGER }),
    'how long a withdrawal waits for that data before it fails and releases its funds (a Temporal timer: days are fine)',
  ),
  withdrawalAddressCoolingOffMinutes: setting(
    'WITHDRAWAL_ADDRESS_COOLING_OFF_MINUTES',
    integer(24 * 60, { min: 0, max: 7 * 24 * 60, what: 'a whole number of minutes' }),
    'how long a new withdrawal-address book entry stays `PENDING` before withdrawals may use it, for partners without their own (`ops partner set-policy --cooling-off-minutes`); 0 to 10080',
  ),
  denyListedAddresses: setting(
    'DENY_LIST_ADDRESSES',
    list(),
    'comma-separated destination addresses refused before broadcast (compared without regard to case)',
  ),
  // No default here: `npm run worker` uses 60 and `npm start` 10 (worker/incoming-sepa-schedule.ts).
  incomingSepaEverySeconds: setting(
    'INCOMING_SEPA_EVERY_SECONDS',
    optionalInteger({ min: 1, max: 3600, what: 'a whole number of seconds' }),
    "how often the `incoming-sepa` Schedule reads the bank's camt.054 notifications (crediting partners) and moves operators' returns on (1 to 3600); a new value takes effect when a worker starts",
    { shownDefault: '`60` (`npm start`: `10`)' },
  ),
};

/** Deliveries to partners' webhook receivers. */
export const WEBHOOK_SETTINGS = {
  webhookRetryBaseMs: setting(
    'WEBHOOK_RETRY_BASE_MS',
    milliseconds(5_000, { min: 1, max: 60 * 60 * 1000 }),
    'first wait before a failed webhook delivery is tried again; doubles up to an hour (1 to 3600000)',
  ),
  webhookAllowLoopback: setting(
    'WEBHOOK_ALLOW_LOOPBACK',
    flag(),
    'webhooks may go to loopback addresses (`127.0.0.0/8`, `::1`, `localhost`), plain `http://` included: a receiver on this machine only. Private, link-local and other non-public targets are refused whatever it says (see Webhooks)',
    { shownDefault: '`false` (`npm start` and the tests: `true`)' },
  ),
};
