import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DEFAULT_EUR_RATES } from '../../core/rates';
import { approveManualCredit, depositByOperator } from '../../operations/operator/manual-credit';
import { OperatorActionRefused } from '../../operations/operator/operator-refusal';
import { consumeOperatorAction, recordOperatorAction } from '../../db/services/operator-audit.service';
import type { AuditEntry } from '../../db/services/operator-audit.service';
import { createTestPartner } from '../support/fixtures';
import { testStack } from '../support/stack';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi({ api: false });
const operator = { actor: 'audit test', osUser: 'jest' };

/** A plain connection as the stack's database user: the schema's owner, and a superuser. */
let owner: pg.Client;

beforeAll(async () => {
  owner = new pg.Client({ connectionString: testStack().databaseAdminUrl! });
  await owner.connect();
  ctx.defer(() => owner.end());
});

async function record(entry: AuditEntry): Promise<string> {
  return ctx.orm.em.fork().transactional((em) => recordOperatorAction(em, operator, entry, new Date()));
}

function travelRuleCompletion(operationId: string, partnerId: string): AuditEntry {
  return {
    action: 'travel-rule-complete',
    subject: { type: 'operation', id: operationId, operationType: 'crypto-withdrawal', partnerId },
    reason: 'beneficiary confirmed by phone',
    details: { completedBy: 'compliance@example.com', completionDigest: 'ab'.repeat(32) },
  };
}

async function consume(actionId: string, action: string, operationId: string) {
  return ctx.orm.em.fork().transactional((em) => consumeOperatorAction(em, { actionId, action, operationId }));
}

/** The SQLSTATE and message a statement fails with. */
async function refusalOf(sql: string, values: unknown[] = []): Promise<{ code: string; message: string }> {
  try {
    await owner.query(sql, values);
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error(`expected the database to refuse: ${sql}`);
}

describe('the operators trail in the database', () => {
  it('refuses UPDATE, DELETE and TRUNCATE of operator_action and operator_action_use to the owner, also in replica mode', async () => {
    const { partnerId } = await createTestPartner(ctx.orm);
    const operationId = randomUUID();
    const id = await record(travelRuleCompletion(operationId, partnerId));
    expect(await consume(id, 'travel-rule-complete', operationId)).toMatchObject({ details: expect.any(Object) });
    const [{ is_superuser }] = (await owner.query(`select current_setting('is_superuser') as is_superuser`)).rows;
    expect(is_superuser).toBe('on');

    const attempts = [
      [`update operator_action set reason = 'rewritten' where id = $1`, [id]],
      [`update operator_action set actor = 'someone else' where id = $1`, [id]],
      [`delete from operator_action where id = $1`, [id]],
      [`truncate operator_action, operator_action_use`, []],
      [`truncate operator_action cascade`, []],
      [`update operator_action_use set operation_id = $1 where action_id = $2`, [randomUUID(), id]],
      [`delete from operator_action_use where action_id = $1`, [id]],
      [`truncate operator_action_use`, []],
    ] as const;
    for (const replicationRole of ['origin', 'replica']) {
      // replica mode silences ordinary triggers (it is how pg_dump restores); these are ALWAYS triggers.
      await owner.query(`set session_replication_role = ${replicationRole}`);
      for (const [sql, values] of attempts) {
        const refusal = await refusalOf(sql, [...values]);
        expect({ sql, replicationRole, code: refusal.code }).toEqual({ sql, replicationRole, code: 'PP020' });
        expect(refusal.message).toMatch(/^operator_action(_use)? is append-only: (UPDATE|DELETE|TRUNCATE) refused/);
      }
    }
    await owner.query('set session_replication_role = origin');

    const rows = await owner.query(
      `select a.actor, a.os_user, a.reason, a.subject_type, a.subject_id, a.partner_id, a.operation_id, u.operation_id as used_by
         from operator_action a join operator_action_use u on u.action_id = a.id where a.id = $1`,
      [id],
    );
    expect(rows.rows).toEqual([
      {
        actor: 'audit test',
        os_user: 'jest',
        reason: 'beneficiary confirmed by phone',
        subject_type: 'operation',
        subject_id: operationId,
        partner_id: partnerId,
        operation_id: operationId,
        used_by: operationId,
      },
    ]);
  });

  it('checks the shape of a row: an operation subject names its operation', async () => {
    const refusal = await refusalOf(
      `insert into operator_action (id, action, actor, os_user, subject_type, subject_id, created_at)
       values ($1, 'release', 'x', 'y', 'operation', $2, now())`,
      [randomUUID(), randomUUID()],
    );
    expect(refusal.code).toBe('23514');
    const badAction = await refusalOf(
      `insert into operator_action (id, action, actor, os_user, subject_type, subject_id, created_at)
       values ($1, 'Drop Table', 'x', 'y', 'partner', $2, now())`,
      [randomUUID(), randomUUID()],
    );
    expect(badAction.message).toContain('operator_action_action_check');
  });

  it('never stores a secret put in the details by mistake', async () => {
    const { partnerId } = await createTestPartner(ctx.orm);
    const id = await record({
      action: 'key-create',
      subject: { type: 'api-key', id: randomUUID(), partnerId },
      details: { apiKey: 'pk_live_secret', note: 'whsec_abc', apiKeyId: 'kept' },
    });
    const { rows } = await owner.query('select details from operator_action where id = $1', [id]);
    expect(rows[0].details).toEqual({ apiKey: '[redacted]', note: '[redacted]', apiKeyId: 'kept' });
  });
});

describe('consumeOperatorAction', () => {
  it('answers the details of a travel-rule completion the CLI recorded, again for the same operation', async () => {
    const { partnerId } = await createTestPartner(ctx.orm);
    const operationId = randomUUID();
    const id = await record(travelRuleCompletion(operationId, partnerId));
    const first = await consume(id, 'travel-rule-complete', operationId);
    expect(first).toEqual({ details: { completedBy: 'compliance@example.com', completionDigest: 'ab'.repeat(32) } });
    // An activity that runs twice gets the same answer; the use is recorded once.
    expect(await consume(id, 'travel-rule-complete', operationId.toUpperCase())).toEqual(first);
    const { rows } = await owner.query('select operation_id from operator_action_use where action_id = $1', [id]);
    expect(rows).toEqual([{ operation_id: operationId }]);
  });

  it('refuses a row that does not exist, or a request that is not a UUID, pointing at the CLI', async () => {
    const unknown = randomUUID();
    expect(await consume(unknown, 'travel-rule-complete', randomUUID())).toEqual({
      refused: `no operator action ${unknown} was recorded: use npm run ops -- travel-rule complete`,
    });
    expect(await consume('not-a-uuid', 'travel-rule-complete', randomUUID())).toEqual({
      refused: expect.stringContaining('use npm run ops -- travel-rule complete'),
    });
  });

  it('refuses a row of another action, or of another operation, and uses nothing then', async () => {
    const { partnerId } = await createTestPartner(ctx.orm);
    const operationId = randomUUID();
    const release = await record({
      action: 'release',
      subject: { type: 'operation', id: operationId, operationType: 'crypto-withdrawal', partnerId },
      reason: 'stuck',
    });
    expect(await consume(release, 'travel-rule-complete', operationId)).toEqual({
      refused: `operator action ${release} is a release, not a travel-rule-complete: use npm run ops -- travel-rule complete`,
    });
    const completion = await record(travelRuleCompletion(operationId, partnerId));
    const other = randomUUID();
    expect(await consume(completion, 'travel-rule-complete', other)).toEqual({
      refused: `operator action ${completion} was recorded for ${operationId}, not for ${other}: use npm run ops -- travel-rule complete`,
    });
    const { rows } = await owner.query('select action_id from operator_action_use where action_id = any($1::uuid[])', [
      [release, completion],
    ]);
    expect(rows).toEqual([]);
  });

  it('refuses a row already used by another operation', async () => {
    const { partnerId } = await createTestPartner(ctx.orm);
    const operationId = randomUUID();
    const id = await record(travelRuleCompletion(operationId, partnerId));
    // Only a bug or a hand-written row can do this: the use must match the row's operation.
    const thief = randomUUID();
    await owner.query('insert into operator_action_use (action_id, operation_id) values ($1, $2)', [id, thief]);
    expect(await consume(id, 'travel-rule-complete', operationId)).toEqual({
      refused: `operator action ${id} was already used by ${thief}: use npm run ops -- travel-rule complete`,
    });
  });
});

describe('manual credits in the database', () => {
  it('allows one approval, by someone else, and no deletion, whatever the SQL', async () => {
    const partner = await createTestPartner(ctx.orm);
    const pending = await ctx.orm.em
      .fork()
      .transactional((em) =>
        depositByOperator(
          em,
          { actor: 'Alice', osUser: 'alice' },
          { partnerId: partner.partnerId, currency: 'eur', amount: '5000', type: 'fiatDeposit', reason: 'wire seen on statement' },
          { eurRates: DEFAULT_EUR_RATES, approvalAboveEur: '1000' },
          new Date(),
        ),
      );
    expect(pending).toMatchObject({ kind: 'pending', amountEur: '5000' });
    const id = pending.kind === 'pending' ? pending.credit.id : '';

    const selfApproval = await refusalOf(
      `update manual_credit set status = 'APPROVED', approved_by = 'alice', approved_os_user = 'alice', approved_at = now(),
              transaction_id = null where id = $1`,
      [id],
    );
    expect(selfApproval).toMatchObject({ code: 'PP021', message: expect.stringContaining('its requester cannot approve it') });
    expect(await refusalOf(`update manual_credit set amount = 50000 where id = $1`, [id])).toMatchObject({ code: 'PP021' });
    expect(await refusalOf(`delete from manual_credit where id = $1`, [id])).toMatchObject({ code: 'PP021' });
    expect(await refusalOf(`truncate manual_credit cascade`)).toMatchObject({ code: 'PP021' });

    const byAlice = ctx.orm.em
      .fork()
      .transactional((em) => approveManualCredit(em, { actor: 'ALICE', osUser: 'other' }, id, new Date(), 'shared'));
    await expect(byAlice).rejects.toBeInstanceOf(OperatorActionRefused);
    await expect(byAlice).rejects.toMatchObject({ reason: 'self-approval' });
    // Another name typed from Alice's own login: the login is the evidence, unless operators share one.
    const fromAlicesLogin = ctx.orm.em
      .fork()
      .transactional((em) => approveManualCredit(em, { actor: 'Bob', osUser: 'alice' }, id, new Date(), 'distinct'));
    await expect(fromAlicesLogin).rejects.toMatchObject({
      reason: 'self-approval',
      message: expect.stringContaining('was requested from the OS account alice'),
    });

    const approved = await ctx.orm.em
      .fork()
      .transactional((em) => approveManualCredit(em, { actor: 'Bob', osUser: 'bob' }, id, new Date(), 'distinct'));
    expect(approved.credit).toMatchObject({ status: 'APPROVED', approvedBy: 'Bob', transactionId: id });
    expect(await refusalOf(`update manual_credit set approved_by = 'Carol' where id = $1`, [id])).toMatchObject({
      code: 'PP021',
      message: expect.stringContaining('only a PENDING credit can be approved, once'),
    });
    const { rows } = await owner.query(`select posted_amount from account where id = $1`, [partner.accounts.eur.id]);
    expect(Number(rows[0].posted_amount)).toBe(5000);
  });
});
