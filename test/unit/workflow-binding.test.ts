import { randomUUID } from 'node:crypto';
import { bindingMismatch } from '../../activities/workflow-binding';
import { cryptoWithdrawalContract, reconciliationContract, sepaTransferContract } from '../../contracts';

/* boundTo itself, refusing and recording: test/e2e/temporal-door.test.ts, on the real worker. */

/** A withdrawal's own workflow, as the API starts it. */
function withdrawalWorkflow(withdrawalId: string) {
  return { workflowId: cryptoWithdrawalContract.workflowId(withdrawalId), workflowType: cryptoWithdrawalContract.workflowType };
}

describe('which workflow may run an activity', () => {
  it("lets an operation's own workflow run its steps, the first one included", () => {
    const id = randomUUID();
    for (const step of ['reserveWithdrawal', 'releaseWithdrawal', 'settleWithdrawal', 'pollWithdrawalConfirmation']) {
      expect(bindingMismatch(step, cryptoWithdrawalContract, [id, 'reason'], withdrawalWorkflow(id))).toBeUndefined();
    }
  });

  it("refuses another operation's workflow, another workflow type and a workflow outside any operation", () => {
    const id = randomUUID();
    const other = randomUUID();
    expect(bindingMismatch('releaseWithdrawal', cryptoWithdrawalContract, [id, 'x', 'FAILED'], withdrawalWorkflow(other))).toBe(
      `releaseWithdrawal for operation ${id} runs only in workflow crypto-withdrawal-${id} (cryptoWithdrawalWorkflow)`,
    );
    // The right id under another type: a workflow of someone else's code named like ours.
    expect(
      bindingMismatch('settleWithdrawal', cryptoWithdrawalContract, [id], {
        workflowId: `crypto-withdrawal-${id}`,
        workflowType: 'sepaTransferWorkflow',
      }),
    ).toMatch(/runs only in workflow/);
    expect(
      bindingMismatch('rejectSepaTransfer', sepaTransferContract, [id, 'AC04'], {
        workflowId: sepaTransferContract.workflowId(id),
        workflowType: cryptoWithdrawalContract.workflowType,
      }),
    ).toMatch(/runs only in workflow sepa-transfer-/);
    expect(bindingMismatch('settleSepaTransfer', sepaTransferContract, [id], { workflowId: undefined, workflowType: undefined })).toMatch(
      /runs only in workflow/,
    );
  });

  it('refuses arguments that name no operation id the API issues', () => {
    const id = randomUUID();
    for (const args of [[], [{ id }], ['x'.repeat(65)], [id.toUpperCase()], [`${id} `]]) {
      expect(bindingMismatch('releaseWithdrawal', cryptoWithdrawalContract, args, withdrawalWorkflow(id))).toBe(
        'releaseWithdrawal names no operation',
      );
    }
  });

  it("lets the housekeeping steps run for their workflow's type only, whatever its id", () => {
    const caller = { workflowId: 'ledger-reconciliation-2026', workflowType: reconciliationContract.workflowType };
    expect(bindingMismatch('reconcileLedger', reconciliationContract, [], caller)).toBeUndefined();
    expect(bindingMismatch('reconcileLedger', reconciliationContract, [], withdrawalWorkflow(randomUUID()))).toBe(
      'reconcileLedger runs only for reconciliationWorkflow',
    );
  });
});
