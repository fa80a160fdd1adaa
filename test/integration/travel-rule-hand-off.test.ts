import { createHash } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { SimulatedChainAdapter } from '../../activities/adapters/chain/simulated-chain.adapter';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import { testStack } from '../support/stack';
import { auditedCompletion } from '../support/travel-rule-completion';
import { reservedWithdrawal, withdrawalActivitiesOn } from '../support/withdrawal-activities';
import type { WithdrawalActivities } from '../support/withdrawal-activities';
import { endPool, openPool } from '../../db/pool';
import { travelRuleCompletionDigest } from '../../db/services/travel-rule-completion-digest';

/**
 * The hand-off of a withdrawal that needs travel-rule data reads the database, not the workflow:
 * the completion must be there, and it must have come from the audit row the operator CLI wrote
 * (operator_action_use). A completion written into travel_rule by SQL, as the service's own role
 * could, moves nothing.
 */

let orm: MikroORM;
let pool: pg.Pool;
let activities: WithdrawalActivities;
beforeAll(async () => {
  orm = await openTestOrm(4);
  // The service's role: what a compromised API or worker could do in SQL.
  pool = openPool({ connectionString: testStack().databaseUrl, max: 4 });
  activities = withdrawalActivitiesOn(orm, pool, new SimulatedChainAdapter({ confirmationDelayMs: 0 }));
});
afterAll(async () => {
  await endPool(pool);
  await orm.close(true);
});

/** Above 1000 EUR to a wallet of its own: waits for travel-rule data. */
async function waitingWithdrawal() {
  const partner = await createTestPartner(orm, { deposits: { eth: '2' } });
  const input = await reservedWithdrawal(activities, pool, partner, { amount: '1', amount_eur: '3100', wallet_type: 'NON_CUSTODIAL' });
  const stored = await pool.query(`select travel_rule->'requiresCompletion' as requires from crypto_withdrawal where id = $1`, [
    input.withdrawalId,
  ]);
  expect(stored.rows).toEqual([{ requires: true }]);
  return input;
}

async function handOffRefusal(withdrawalId: string): Promise<string> {
  const error = await activities.markWithdrawalHandOff(withdrawalId).then(
    () => new Error('the hand-off was marked'),
    (reason: Error) => reason,
  );
  return error.message;
}

async function handedOffAt(withdrawalId: string): Promise<unknown> {
  const rows = await pool.query(`select handed_off_at from crypto_withdrawal where id = $1`, [withdrawalId]);
  return rows.rows[0].handed_off_at;
}

describe('the hand-off of a withdrawal that waits for travel-rule data', () => {
  it('is refused while the data is not completed', async () => {
    const { withdrawalId } = await waitingWithdrawal();
    expect(await handOffRefusal(withdrawalId)).toBe(
      `crypto withdrawal ${withdrawalId} cannot be handed off: its travel-rule data has not been completed`,
    );
    expect(await handedOffAt(withdrawalId)).toBeNull();
  });

  it('is refused for a completion written by SQL, even one naming a real but unused audit row', async () => {
    const input = await waitingWithdrawal();
    const { operatorActionId } = await auditedCompletion(orm, input, { completedBy: 'mallory@example.com' });
    for (const actionId of ['00000000-0000-4000-8000-000000000000', operatorActionId]) {
      await pool.query(
        `update crypto_withdrawal set travel_rule = travel_rule || jsonb_build_object('completion',
           jsonb_build_object('completedBy', 'mallory@example.com', 'operatorActionId', $2::text, 'completedAt', now()))
          where id = $1`,
        [input.withdrawalId, actionId],
      );
      expect(await handOffRefusal(input.withdrawalId)).toBe(
        `crypto withdrawal ${input.withdrawalId} cannot be handed off: its travel-rule completion was not recorded from an operator action (npm run ops -- travel-rule complete)`,
      );
    }
    expect(await handedOffAt(input.withdrawalId)).toBeNull();
  });

  it('is refused when the stored completion differs from the one its audit row recorded', async () => {
    const input = await waitingWithdrawal();
    const completion = await auditedCompletion(orm, input, { completedBy: 'compliance@partner.example' });
    expect(await activities.recordTravelRuleCompletion(input.withdrawalId, completion)).toBeUndefined();
    await pool.query(
      `update crypto_withdrawal set travel_rule = jsonb_set(travel_rule, '{completion,completedBy}', '"mallory@example.com"') where id = $1`,
      [input.withdrawalId],
    );
    expect(await handOffRefusal(input.withdrawalId)).toMatch(/was not recorded from an operator action/);
  });

  it("is refused for another withdrawal's completion and audit row, its use written for this one by SQL", async () => {
    const [other, input] = [await waitingWithdrawal(), await waitingWithdrawal()];
    const completion = await auditedCompletion(orm, other, { completedBy: 'compliance@partner.example' });
    await pool.query(`insert into operator_action_use (action_id, operation_id) values ($1, $2)`, [
      completion.operatorActionId,
      input.withdrawalId,
    ]);
    await pool.query(
      `update crypto_withdrawal set travel_rule = travel_rule || jsonb_build_object('completion',
         jsonb_build_object('completedBy', 'compliance@partner.example', 'operatorActionId', $2::text, 'completedAt', now()))
        where id = $1`,
      [input.withdrawalId, completion.operatorActionId],
    );
    expect(await handOffRefusal(input.withdrawalId)).toMatch(/was not recorded from an operator action/);
    expect(await handedOffAt(input.withdrawalId)).toBeNull();
  });

  it("is refused when the stored beneficiary differs from the one its audit row's digest names", async () => {
    const input = await waitingWithdrawal();
    const beneficiary = {
      beneficiaryPersons: [
        { legalPerson: { name: { nameIdentifier: [{ legalPersonName: 'Acme', legalPersonNameIdentifierType: 'LEGL' as const }] } } },
      ],
    };
    const completion = await auditedCompletion(orm, input, { completedBy: 'compliance@partner.example', beneficiary });
    expect(await activities.recordTravelRuleCompletion(input.withdrawalId, completion)).toBeUndefined();
    await pool.query(
      `update crypto_withdrawal set travel_rule = jsonb_set(travel_rule, '{completion,beneficiary,beneficiaryPersons,0,legalPerson,name,nameIdentifier,0,legalPersonName}', '"Mallory Ltd"')
        where id = $1`,
      [input.withdrawalId],
    );
    expect(await handOffRefusal(input.withdrawalId)).toMatch(/was not recorded from an operator action/);
    expect(await handedOffAt(input.withdrawalId)).toBeNull();
  });

  it('goes through for the completion recorded from its audit row', async () => {
    const input = await waitingWithdrawal();
    const completion = await auditedCompletion(orm, input, {
      completedBy: 'compliance@partner.example',
      beneficiary: {
        beneficiaryPersons: [
          {
            naturalPerson: {
              name: { nameIdentifier: [{ primaryIdentifier: 'Kowalski', secondaryIdentifier: 'Jan', nameIdentifierType: 'LEGL' }] },
            },
          },
        ],
      },
    });
    expect(await activities.recordTravelRuleCompletion(input.withdrawalId, completion)).toBeUndefined();
    expect(await activities.markWithdrawalHandOff(input.withdrawalId)).toBe('MARKED');
    expect(await handedOffAt(input.withdrawalId)).not.toBeNull();
  });
});

describe("a travel-rule completion's digest (travel_rule_completion_digest)", () => {
  const digestOf = (completion: { completedBy: string; beneficiary?: unknown }) => travelRuleCompletionDigest(orm.em.fork(), completion);
  const kowalski = {
    beneficiaryPersons: [{ naturalPerson: { name: { nameIdentifier: [{ primaryIdentifier: 'Kowalski', nameIdentifierType: 'LEGL' }] } } }],
  };

  it('is the SHA-256 hex of {completedBy, beneficiary} as jsonb writes it, the beneficiary left out when none was given', async () => {
    const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    expect(await digestOf({ completedBy: 'ops@example.com', beneficiary: kowalski })).toBe(
      sha256(
        '{"beneficiary": {"beneficiaryPersons": [{"naturalPerson": {"name": {"nameIdentifier": [{"primaryIdentifier": "Kowalski", "nameIdentifierType": "LEGL"}]}}}]}, "completedBy": "ops@example.com"}',
      ),
    );
    expect(await digestOf({ completedBy: 'ops@example.com' })).toBe(sha256('{"completedBy": "ops@example.com"}'));
  });

  it('does not depend on the order of keys, and changes with any value', async () => {
    const digest = await digestOf({ completedBy: 'ops@example.com', beneficiary: kowalski });
    const reordered = JSON.parse(
      '{"beneficiaryPersons":[{"naturalPerson":{"name":{"nameIdentifier":[{"nameIdentifierType":"LEGL","primaryIdentifier":"Kowalski"}]}}}]}',
    ) as unknown;
    expect(await digestOf({ beneficiary: reordered, completedBy: 'ops@example.com' })).toBe(digest);
    const nowak = JSON.parse(JSON.stringify(kowalski).replace('Kowalski', 'Nowak')) as unknown;
    expect(await digestOf({ completedBy: 'ops@example.com', beneficiary: nowak })).not.toBe(digest);
    expect(await digestOf({ completedBy: 'other@example.com', beneficiary: kowalski })).not.toBe(digest);
    expect(await digestOf({ completedBy: 'ops@example.com' })).not.toBe(digest);
  });
});
