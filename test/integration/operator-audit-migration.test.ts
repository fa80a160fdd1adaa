import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../db/orm';
import { testStack } from '../support/stack';

/**
 * Migration20261124020000_operator_audit on a database that already holds audit rows of the
 * first kind (a release of a withdrawal, a travel-rule completion): they stay, become actions on
 * their operation with its partner, and are append-only from then on. Runs on a database of its
 * own, created and dropped here.
 */
const database = `audit_migration_${randomUUID().replaceAll('-', '')}`;
const urlOf = (name: string): string => {
  const url = new URL(testStack().databaseAdminUrl!);
  url.pathname = `/${name}`;
  return url.toString();
};

let admin: pg.Client;
let orm: MikroORM | undefined;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: testStack().databaseAdminUrl! });
  await admin.connect();
  await admin.query(`create database ${database}`);
  orm = await openOrm(urlOf(database), 2);
});

afterAll(async () => {
  await orm?.close(true);
  await admin.query(`drop database if exists ${database}`);
  await admin.end();
});

it('keeps the operator actions recorded before it, with their operation and partner, and makes them append-only', async () => {
  const migrator = orm!.getMigrator();
  await migrator.up({ to: 'Migration20261122060000_evm_chain' });
  const db = new pg.Client({ connectionString: urlOf(database) });
  await db.connect();
  try {
    const partnerId = randomUUID();
    const withdrawalId = randomUUID();
    const sepaTransferId = randomUUID();
    await db.query(`insert into partner (id, name, fee_percentage) values ($1, 'Old partner', 1)`, [partnerId]);
    await db.query(
      `insert into crypto_withdrawal (id, partner_id, currency, network, amount, fee, destination, wallet_type, receiver_type,
                                      beneficiary_name, status, stage, amount_eur)
       values ($1, $2, 'eth', 'ethereum', 0.5, 0.0005, '0x${'1'.repeat(40)}', 'NON_CUSTODIAL', 'NATURAL', 'Jan Kowalski',
               'IN_PROGRESS_TR_DATA', 'AWAITING_TRAVEL_RULE_DATA', 1500)`,
      [withdrawalId, partnerId],
    );
    await db.query(
      `insert into operator_action (id, operation_id, operation_type, action, actor, reason, details, created_at) values
         ($1, $2, 'crypto-withdrawal', 'travel-rule-complete', 'compliance@example.com', 'travel-rule data completed', '{"result":{}}', now()),
         ($3, $4, 'sepa-transfer', 'release', 'alice', 'terminated', null, now())`,
      [randomUUID(), withdrawalId, randomUUID(), sepaTransferId],
    );

    await migrator.up();

    const { rows } = await db.query(
      `select action, actor, os_user, subject_type, subject_id, partner_id, operation_id, reason from operator_action order by action`,
    );
    expect(rows).toEqual([
      {
        action: 'release',
        actor: 'alice',
        os_user: null,
        subject_type: 'operation',
        subject_id: sepaTransferId,
        // No such SEPA transfer here: no partner to fill in.
        partner_id: null,
        operation_id: sepaTransferId,
        reason: 'terminated',
      },
      {
        action: 'travel-rule-complete',
        actor: 'compliance@example.com',
        os_user: null,
        subject_type: 'operation',
        subject_id: withdrawalId,
        partner_id: partnerId,
        operation_id: withdrawalId,
        reason: 'travel-rule data completed',
      },
    ]);
    await expect(db.query(`delete from operator_action`)).rejects.toMatchObject({ code: 'PP020' });
  } finally {
    await db.end();
  }
});
