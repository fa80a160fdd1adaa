import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { reserveTransfer, voidTransfer } from '../../db/ledger/ledger';
import { settleIfHandedOff } from '../../db/queries/outgoing-payment.queries';
import { createTestPartner, openTestOrm } from '../support/fixtures';
import { testStack } from '../support/stack';
import { endPool, openPool } from '../../db/pool';

/**
 * An outgoing payment's usual settlement in one statement (issue 22): the record closed as SETTLED
 * and its hold posted together, or nothing at all.
 */

let orm: MikroORM;
let pool: pg.Pool;
beforeAll(async () => {
  orm = await openTestOrm(2);
  pool = openPool({ connectionString: testStack().databaseUrl, max: 2 });
});
afterAll(async () => {
  await endPool(pool);
  await orm.close(true);
});

/** A withdrawal of 0.5 eth held from a partner with 2 eth, handed off or not. */
async function heldWithdrawal(handedOff: boolean): Promise<{ id: string; partnerId: string }> {
  const partner = await createTestPartner(orm, { deposits: { eth: '2' } });
  const id = randomUUID();
  const now = new Date();
  await reserveTransfer(
    pool,
    {
      transferId: id,
      kind: 'CRYPTO_WITHDRAWAL',
      postings: [
        { partnerId: partner.partnerId, currency: 'eth', amount: '-0.5' },
        { systemAccount: 'CRYPTO_WITHDRAWALS', currency: 'eth', amount: '0.5' },
      ],
    },
    now,
  );
  await pool.query(
    `insert into crypto_withdrawal (id, partner_id, currency, network, amount, fee, destination, wallet_type, receiver_type,
                                    beneficiary_name, status, stage, amount_eur, handed_off_at)
     values ($1, $2, 'eth', 'ethereum', 0.5, 0, '0x1111111111111111111111111111111111111111', 'CUSTODIAL', 'NATURAL',
             'Ada Lovelace', 'IN_PROGRESS', $3, 1000, $4)`,
    [id, partner.partnerId, handedOff ? 'BROADCAST' : 'RESERVED', handedOff ? now : null],
  );
  return { id, partnerId: partner.partnerId };
}

async function state(id: string, partnerId: string) {
  const { rows } = await pool.query<{ status: string; stage: string; hold: string; posted: string; available: string }>(
    `select w.status, w.stage, t.state as hold, a.posted_amount::text as posted, (a.posted_amount - a.pending_out_amount)::text as available
       from crypto_withdrawal w join ledger_transfer t on t.id = w.id
       join account a on a.kind = 'PARTNER' and a.partner_id = $2 and a.currency = 'eth'
      where w.id = $1`,
    [id, partnerId],
  );
  return rows[0];
}

describe('settleIfHandedOff', () => {
  it('closes the record and posts the hold together; run again, it changes nothing', async () => {
    const { id, partnerId } = await heldWithdrawal(true);
    await expect(settleIfHandedOff(pool, 'crypto_withdrawal', id, new Date())).resolves.toBe(true);
    const settled = {
      status: 'SUCCESSFUL',
      stage: 'SETTLED',
      hold: 'POSTED',
      posted: '1.500000000000000000',
      available: '1.500000000000000000',
    };
    expect(await state(id, partnerId)).toEqual(settled);
    await expect(settleIfHandedOff(pool, 'crypto_withdrawal', id, new Date())).resolves.toBe(false);
    expect(await state(id, partnerId)).toEqual(settled);
  });

  it('leaves a payment not handed off as it is', async () => {
    const { id, partnerId } = await heldWithdrawal(false);
    await expect(settleIfHandedOff(pool, 'crypto_withdrawal', id, new Date())).resolves.toBe(false);
    expect(await state(id, partnerId)).toMatchObject({ status: 'IN_PROGRESS', stage: 'RESERVED', hold: 'PENDING' });
  });

  it('refuses to post a voided hold, and the record stays open (one transaction)', async () => {
    // Voided before the hand-off (the void guard refuses it after), then found handed off: a broken state.
    const { id, partnerId } = await heldWithdrawal(false);
    await voidTransfer(pool, id, new Date());
    await pool.query(`update crypto_withdrawal set handed_off_at = now(), stage = 'BROADCAST' where id = $1`, [id]);
    await expect(settleIfHandedOff(pool, 'crypto_withdrawal', id, new Date())).rejects.toThrow(/VOIDED/);
    expect(await state(id, partnerId)).toMatchObject({
      status: 'IN_PROGRESS',
      stage: 'BROADCAST',
      hold: 'VOIDED',
      available: '2.000000000000000000',
    });
  });
});
