import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { incomingSepaContract } from '../../contracts';
import type { IncomingSepaResult } from '../../contracts';
import { createLogger } from '../../core/logger';
import { findSuspenseMismatch } from '../../db/queries/incoming-sepa-credit.queries';
import { newIban } from '../../db/services/account-identifiers';
import { INCOMING_SEPA_SCHEDULE_ID, ensureIncomingSepaSchedule } from '../../worker/incoming-sepa-schedule';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import type { TestPartner } from '../support/fixtures';
import { balancesOf, historyOf } from '../support/operations';
import { runOpsCli } from '../support/ops-cli';
import { testStack } from '../support/stack';
import { TEST_WORKER_SETTINGS } from '../support/test-config';
import { useTestApi } from '../support/use-test-api';
import { startRegisteredWebhookReceiver } from '../support/webhook-receiver';
import { endPool, openPool } from '../../db/pool';

/**
 * Incoming SEPA credits through the real stack: the simulated bank books a credit
 * (`ops bank receive`), the incoming-sepa workflow reads its camt.054 and credits the partner
 * once, or holds the money in suspense for an operator (`ops bank unmatched`, `assign`, `return`);
 * the partner sees it through the API.
 */
const ctx = useTestApi();
let pool: pg.Pool;
beforeAll(() => {
  pool = openPool({ connectionString: testStack().databaseUrl, max: 2 });
});
afterAll(async () => {
  await endPool(pool);
});

const DEBTOR_IBAN = 'FR1420041010050500013M02606';
/** Each CLI call is a process of its own (seconds on a loaded machine): the tests that make several get this long. */
const CLI_HEAVY_MS = 180_000;

/** The CLI as a developer runs it against a deployment that declares the bank simulated. */
const ops = (args: string[], env: Record<string, string> = { SIMULATED_RAILS: 'sepa' }) => runOpsCli(args, env);

async function receive(iban: string, amount: string, extra: string[] = []): Promise<string> {
  const { code, output } = await ops([
    'bank',
    'receive',
    '--iban',
    iban,
    '--amount',
    amount,
    '--debtor-name',
    'Zoë Kowalska',
    '--debtor-iban',
    DEBTOR_IBAN,
    '--remittance',
    'Top-up 7',
    ...extra,
  ]);
  expect({ code, output }).toMatchObject({ code: 0, output: { entryRef: expect.any(String) } });
  return output.entryRef as string;
}

/** One run of what the incoming-sepa Schedule starts, on the stack's worker. */
async function ingest(): Promise<IncomingSepaResult> {
  return ctx.temporal.workflow.execute(incomingSepaContract.workflowType, {
    taskQueue: testStack().taskQueue,
    workflowId: incomingSepaContract.workflowId(`test-${randomUUID()}`),
    args: [],
  });
}

async function creditRow(entryRef: string) {
  const rows = await pool.query<{
    status: string;
    unmatched_reason: string | null;
    return_id: string | null;
    return_rejection: string | null;
  }>('select status, unmatched_reason, return_id, return_rejection from incoming_sepa_credit where entry_ref = $1', [entryRef]);
  return rows.rows[0];
}

async function unmatched(): Promise<Array<Record<string, unknown>>> {
  const { code, output } = await ops(['bank', 'unmatched', '--limit', '1000'], {});
  expect(code).toBe(0);
  return output.unmatched;
}

const sepaDeposits = async (partner: TestPartner) => (await historyOf(ctx.api, partner)).filter((entry) => entry.type === 'sepaDeposit');

describe('an incoming SEPA credit to a partner’s ACTIVE IBAN', () => {
  it(
    'is credited by the ingest: the balance and the history show one sepaDeposit',
    async () => {
      const partner = await createTestPartner(ctx.orm);
      const receiver = await startRegisteredWebhookReceiver(partner.partnerId, ctx);
      const entryRef = await receive(partner.accounts.eur.iban!, '125.50');
      await ingest();
      expect((await balancesOf(ctx.api, partner)).eur).toBe('125.50');
      const entries = await sepaDeposits(partner);
      expect(entries).toEqual([expect.objectContaining({ type: 'sepaDeposit', amount: 125.5, currency: 'eur', status: 'SUCCESSFUL' })]);
      expect(await creditRow(entryRef)).toMatchObject({ status: 'CREDITED' });
      expect((await unmatched()).map((entry) => entry.entryRef)).not.toContain(entryRef);

      // The partner hears of it: one signed deposit.succeeded about its history entry.
      await eventually(async () => expect(receiver.received).toHaveLength(1), { timeoutMs: 30_000 });
      const [event] = receiver.received;
      expect(event!.verified).toBe(true);
      expect(event!.event).toMatchObject({ type: 'deposit.succeeded', id: event!.webhookId });
      expect(event!.event.data).toEqual({
        id: entries[0]!.id,
        type: 'sepaDeposit',
        status: 'SUCCESSFUL',
        stage: 'CREDITED',
        failureReason: null,
        sequence: 1,
        network: null,
        currency: 'eur',
        amount: '125.5',
        transactionHash: null,
      });
    },
    CLI_HEAVY_MS,
  );

  it(
    'delivered twice is credited once: the bank sending it again, and the ingest reading everything again from a reset cursor',
    async () => {
      const partner = await createTestPartner(ctx.orm);
      const receiver = await startRegisteredWebhookReceiver(partner.partnerId, ctx);
      const entryRef = `TWICE-${randomUUID().slice(0, 8)}`;
      await receive(partner.accounts.eur.iban!, '10.00', ['--entry-ref', entryRef]);
      await ingest();
      const again = await ops([
        'bank',
        'receive',
        '--iban',
        partner.accounts.eur.iban!,
        '--amount',
        '10',
        '--debtor-name',
        'Zoë Kowalska',
        '--debtor-iban',
        DEBTOR_IBAN,
        '--remittance',
        'Top-up 7',
        '--entry-ref',
        entryRef,
      ]);
      expect(again.output).toMatchObject({ entryRef, redelivery: true });
      const second = await ingest();
      expect(second.duplicates).toBeGreaterThanOrEqual(1);
      await pool.query(`update bank_notification_cursor set position = null, updated_at = now() where source = 'bank'`);
      const fromTheStart = await ingest();
      expect(fromTheStart.duplicates).toBeGreaterThanOrEqual(2);
      expect(fromTheStart.credited).toBe(0);
      expect((await balancesOf(ctx.api, partner)).eur).toBe('10.00');
      expect(await sepaDeposits(partner)).toHaveLength(1);
      // One credit, one event: the redeliveries send none.
      await eventually(async () => expect(receiver.received.map((each) => each.event.type)).toEqual(['deposit.succeeded']), {
        timeoutMs: 30_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(receiver.received).toHaveLength(1);
    },
    CLI_HEAVY_MS,
  );

  it(
    'under a reference the bank booked with other money is refused by the simulated bank',
    async () => {
      const partner = await createTestPartner(ctx.orm);
      const entryRef = `OTHER-${randomUUID().slice(0, 8)}`;
      await receive(partner.accounts.eur.iban!, '1.00', ['--entry-ref', entryRef]);
      const other = await ops([
        'bank',
        'receive',
        '--iban',
        partner.accounts.eur.iban!,
        '--amount',
        '2.00',
        '--debtor-name',
        'X',
        '--debtor-iban',
        DEBTOR_IBAN,
        '--entry-ref',
        entryRef,
      ]);
      expect(other).toMatchObject({ code: 1, output: { error: 'invalid-request', message: expect.stringContaining('other details') } });
    },
    CLI_HEAVY_MS,
  );
});

describe('an incoming SEPA credit no partner account takes', () => {
  it(
    'to an unknown IBAN is held in suspense and listed by bank unmatched, the suspense account equal to the open credits',
    async () => {
      const iban = newIban();
      const entryRef = await receive(iban, '40');
      await ingest();
      expect(await unmatched()).toContainEqual(
        expect.objectContaining({
          entryRef,
          iban,
          amount: '40.00',
          debtorName: 'Zoë Kowalska',
          remittance: 'Top-up 7',
          receivedAt: expect.any(String),
          status: 'UNMATCHED',
          reason: 'NO_ACCOUNT',
          accountPartnerId: null,
        }),
      );
      expect(await findSuspenseMismatch(pool)).toEqual([]);
    },
    CLI_HEAVY_MS,
  );

  it(
    'to a WAITING_TO_BE_ACTIVATED account waits for an operator; assign credits it once, and nothing is decided twice',
    async () => {
      const partner = await createTestPartner(ctx.orm);
      const setStatus = (status: string) =>
        ops(['account', 'set-status', '--partner', partner.partnerId, '--currency', 'eur', '--status', status, '--reason', 'KYC'], {});
      expect((await setStatus('WAITING_TO_BE_ACTIVATED')).code).toBe(0);
      const receiver = await startRegisteredWebhookReceiver(partner.partnerId, ctx);
      const entryRef = await receive(partner.accounts.eur.iban!, '75.25');
      await ingest();
      expect(await unmatched()).toContainEqual(
        expect.objectContaining({ entryRef, reason: 'ACCOUNT_NOT_ACTIVE', accountPartnerId: partner.partnerId }),
      );
      expect((await balancesOf(ctx.api, partner)).eur).toBe('0.00');

      const assign = () => ops(['bank', 'assign', entryRef, '--partner', partner.partnerId, '--reason', 'IBAN is theirs, KYC done'], {});
      expect(await assign()).toMatchObject({ code: 1, output: { error: 'refused', reason: 'account-not-active' } });
      expect((await setStatus('ACTIVE')).code).toBe(0);
      expect(await assign()).toMatchObject({
        code: 0,
        output: { entryRef, status: 'ASSIGNED', partnerId: partner.partnerId, amount: '75.25' },
      });
      expect(await assign()).toMatchObject({ code: 1, output: { error: 'refused', reason: 'already-resolved' } });
      expect(await ops(['bank', 'return', entryRef, '--reason', 'too late'], {})).toMatchObject({
        code: 1,
        output: { reason: 'already-resolved' },
      });
      expect((await balancesOf(ctx.api, partner)).eur).toBe('75.25');
      const entries = await sepaDeposits(partner);
      expect(entries).toHaveLength(1);
      // Nothing was said while it waited in suspense; the assignment's credit sends one event.
      await eventually(async () => expect(receiver.received).toHaveLength(1), { timeoutMs: 30_000 });
      expect(receiver.received[0]!.event).toMatchObject({
        type: 'deposit.succeeded',
        data: { id: entries[0]!.id, type: 'sepaDeposit', amount: '75.25', currency: 'eur', sequence: 1 },
      });
      expect((await unmatched()).map((entry) => entry.entryRef)).not.toContain(entryRef);
      const audit = await ops(['audit', 'list', '--partner', partner.partnerId, '--action', 'bank-assign'], {});
      expect(audit.output.actions).toEqual([
        expect.objectContaining({ reason: 'IBAN is theirs, KYC done', details: expect.objectContaining({ entryRef }) }),
      ]);
      expect(await findSuspenseMismatch(pool)).toEqual([]);
    },
    CLI_HEAVY_MS,
  );

  it(
    'assigned to a partner that does not own the IBAN it came to waits for a second operator, whatever the amount; approved, it is credited once',
    async () => {
      const partner = await createTestPartner(ctx.orm);
      const entryRef = await receive(newIban(), '25000.00');
      await ingest();
      // As in a container where operators share one login (MANUAL_CREDIT_APPROVAL_OS_USERS=shared): the names must differ.
      const asOperator = (name: string) => ({ OPS_OPERATOR: name, MANUAL_CREDIT_APPROVAL_OS_USERS: 'shared' });
      const requested = await ops(
        ['bank', 'assign', entryRef, '--partner', partner.partnerId, '--reason', 'the customer says it is theirs'],
        asOperator('mallory'),
      );
      expect(requested).toMatchObject({
        code: 0,
        output: {
          entryRef,
          status: 'PENDING_APPROVAL',
          pendingCreditId: expect.any(String),
          amount: '25000.00',
          why: expect.stringContaining("which is no partner's, not partner"),
        },
      });
      expect((await balancesOf(ctx.api, partner)).eur).toBe('0.00');
      expect(await unmatched()).toContainEqual(expect.objectContaining({ entryRef, status: 'UNMATCHED' }));
      const approve = (name: string) =>
        ops(['deposit', 'approve', requested.output.pendingCreditId, '--reason', 'checked'], asOperator(name));
      expect(await approve('mallory')).toMatchObject({ code: 1, output: { reason: 'self-approval' } });
      expect(await approve('trent')).toMatchObject({
        code: 0,
        output: { status: 'APPROVED', requestedBy: 'mallory', approvedBy: 'trent' },
      });
      expect(await approve('victor')).toMatchObject({ code: 1, output: { reason: 'already-approved' } });
      expect((await balancesOf(ctx.api, partner)).eur).toBe('25000.00');
      expect(await sepaDeposits(partner)).toHaveLength(1);
      expect((await unmatched()).map((entry) => entry.entryRef)).not.toContain(entryRef);
      expect(await findSuspenseMismatch(pool)).toEqual([]);
    },
    CLI_HEAVY_MS,
  );

  it(
    'returned by an operator is sent back to the debtor by one SEPA transfer, however many runs go by',
    async () => {
      const entryRef = await receive(newIban(), '33.30');
      await ingest();
      const returned = await ops(['bank', 'return', entryRef, '--reason', 'no such customer'], {});
      expect(returned).toMatchObject({ code: 0, output: { entryRef, status: 'RETURNING', returnId: expect.any(String) } });
      const { returnId } = returned.output;
      expect(await ops(['bank', 'return', entryRef, '--reason', 'again'], {})).toMatchObject({
        code: 1,
        output: { reason: 'already-resolved' },
      });
      await eventually(
        async () => {
          await ingest();
          expect(await creditRow(entryRef)).toMatchObject({ status: 'RETURNED', return_id: returnId });
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      await ingest();
      const payments = await pool.query<{ transfer_id: string; amount: string; creditor_iban: string; pain001: string }>(
        `select transfer_id, amount::text, creditor_iban, pain001 from simulated_bank_payment where transfer_id = $1 or pain001 like $2`,
        [returnId, `%Return of SEPA credit ${entryRef}%`],
      );
      expect(payments.rows).toEqual([expect.objectContaining({ transfer_id: returnId, amount: '33.30', creditor_iban: DEBTOR_IBAN })]);
      expect(payments.rows[0]!.pain001).toContain('<Nm>Zoe Kowalska</Nm>');
      const transfer = await pool.query('select kind, state from ledger_transfer where id = $1', [returnId]);
      expect(transfer.rows).toEqual([{ kind: 'SEPA_RETURN', state: 'POSTED' }]);
      expect((await unmatched()).map((entry) => entry.entryRef)).not.toContain(entryRef);
      expect(await findSuspenseMismatch(pool)).toEqual([]);
    },
    CLI_HEAVY_MS,
  );

  it(
    'whose return the bank rejects waits for an operator again, with the bank’s reason',
    async () => {
      const rejectedDebtor = TEST_WORKER_SETTINGS.SIMULATED_BANK_REJECT_IBANS;
      const { output } = await ops([
        'bank',
        'receive',
        '--iban',
        newIban(),
        '--amount',
        '5',
        '--debtor-name',
        'Closed Account',
        '--debtor-iban',
        rejectedDebtor,
      ]);
      const entryRef = output.entryRef as string;
      await ingest();
      expect((await ops(['bank', 'return', entryRef, '--reason', 'unknown'], {})).code).toBe(0);
      await eventually(
        async () => {
          await ingest();
          expect(await creditRow(entryRef)).toMatchObject({
            status: 'UNMATCHED',
            return_id: null,
            return_rejection: expect.stringContaining('rejected'),
          });
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      expect(await unmatched()).toContainEqual(
        expect.objectContaining({ entryRef, status: 'UNMATCHED', returnRejection: expect.any(String) }),
      );
      expect(await findSuspenseMismatch(pool)).toEqual([]);
    },
    CLI_HEAVY_MS,
  );
});

describe('the ingest', () => {
  it(
    'skips a malformed notification and one with a DTD, logged, and still credits the ones after them',
    async () => {
      const partner = await createTestPartner(ctx.orm);
      const insert = (camt054: string) =>
        pool.query(
          `insert into simulated_bank_notification (id, entry_ref, account_iban, amount, debtor_name, debtor_iban, camt054)
         values ($1, 'BROKEN', $2, 1, 'x', $3, $4)`,
          [randomUUID(), partner.accounts.eur.iban, DEBTOR_IBAN, camt054],
        );
      await insert('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn>');
      await insert('<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document>&x;</Document>');
      await receive(partner.accounts.eur.iban!, '9.99');
      const result = await ingest();
      expect(result.refusedDocuments).toBeGreaterThanOrEqual(2);
      expect((await balancesOf(ctx.api, partner)).eur).toBe('9.99');
    },
    CLI_HEAVY_MS,
  );

  it(
    'is started by the incoming-sepa Schedule on its own',
    async () => {
      ctx.defer(() => ctx.temporal.schedule.getHandle(INCOMING_SEPA_SCHEDULE_ID).delete());
      await ensureIncomingSepaSchedule(ctx.temporal, testStack().taskQueue, 1, createLogger('test', 'warn'));
      const partner = await createTestPartner(ctx.orm);
      await receive(partner.accounts.eur.iban!, '2.50');
      await eventually(async () => expect((await balancesOf(ctx.api, partner)).eur).toBe('2.50'), { timeoutMs: 60_000, intervalMs: 250 });
    },
    CLI_HEAVY_MS,
  );
});

describe('bank receive', () => {
  it(
    'is refused where the deployment does not declare SEPA simulated',
    async () => {
      const refused = await ops(
        ['bank', 'receive', '--iban', newIban(), '--amount', '1', '--debtor-name', 'X', '--debtor-iban', DEBTOR_IBAN],
        {
          SIMULATED_RAILS: '',
        },
      );
      expect(refused).toMatchObject({ code: 1, output: { error: 'invalid-request', message: expect.stringContaining('SIMULATED_RAILS') } });
    },
    CLI_HEAVY_MS,
  );
});
