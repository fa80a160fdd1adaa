import { cryptoWithdrawalContract } from '../../contracts';
import type { CryptoWithdrawalInput } from '../../contracts';
import { newWalletAddress } from '../../db/services/account-identifiers';
import type { OperationProgress } from '../../contracts';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import { balancesOf } from '../support/operations';
import { testStack } from '../support/stack';
import { TEST_WORKER_SETTINGS } from '../support/test-config';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi();

/**
 * What an operator's reset, or the same withdrawal id started again after Temporal's retention,
 * looks like to the activities: a new run of the operation's own workflow, with the input the API
 * accepted, of an operation that is already over.
 */
async function runAgain(input: CryptoWithdrawalInput): Promise<OperationProgress> {
  return ctx.temporal.workflow.execute('cryptoWithdrawalWorkflow', {
    taskQueue: testStack().taskQueue,
    workflowId: cryptoWithdrawalContract.workflowId(input.withdrawalId),
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    args: [input],
  });
}

async function withdrawalRow(withdrawalId: string) {
  const rows = await ctx.orm.em
    .fork()
    .getConnection()
    .execute<{ status: string; transaction_hash: string | null }[]>(`select status, transaction_hash from crypto_withdrawal where id = ?`, [
      withdrawalId,
    ]);
  return rows[0]!;
}

describe('a withdrawal run again after it is over', () => {
  it.each([
    ['released (deny-listed)', TEST_WORKER_SETTINGS.DENY_LIST_ADDRESSES, 'UNSUCCESSFUL', '1.000000000000000000'],
    ['settled', newWalletAddress('eth'), 'SUCCESSFUL', '0.499500000000000000'],
  ])('when %s, neither broadcasts nor moves money again', async (_name, destination, finalStatus, finalBalance) => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1' } });
    const body = {
      currency: 'eth',
      amount: 0.5,
      walletAddress: destination,
      name: 'Jan Kowalski',
      walletType: 'CUSTODIAL',
      receiverType: 'NATURAL',
    };
    const response = await ctx.api.request('POST', '/v1/partner/crypto-withdrawal', { apiKey: partner.apiKey, body });
    const withdrawalId = response.json.withdrawalId as string;
    const before = await eventually(async () => {
      const row = await withdrawalRow(withdrawalId);
      expect(row.status).toBe(finalStatus);
      return row;
    });
    // The row is final before the workflow's last steps (the partner's webhook) end; a run again
    // starts only once the first run is closed, as an operator's reset or a later start would.
    await ctx.temporal.workflow.getHandle(cryptoWithdrawalContract.workflowId(withdrawalId)).result();

    const rerun = await runAgain({ withdrawalId, currency: 'eth', network: 'ethereum' });
    expect(rerun.status).toBe(finalStatus);
    expect(await withdrawalRow(withdrawalId)).toEqual(before);
    expect((await balancesOf(ctx.api, partner)).eth).toBe(finalBalance);
  });
});
