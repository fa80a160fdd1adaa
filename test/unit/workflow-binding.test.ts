import { randomUUID } from 'node:crypto';
import { ACTIVITY_BINDINGS, bindingRefusal } from '../../activities/workflow-binding.interceptor';
import { createActivities } from '../../activities';
import type { ActivityDependencies } from '../../activities/dependencies';
import { cryptoWithdrawalContract, reconciliationContract, sepaTransferContract } from '../../contracts';

/** A withdrawal's own workflow, as the API starts it. */
function withdrawalWorkflow(withdrawalId: string) {
  return { workflowId: cryptoWithdrawalContract.workflowId(withdrawalId), workflowType: cryptoWithdrawalContract.workflowType };
}

describe('which workflow may run an activity', () => {
  it('lists every activity the worker registers, and nothing else', () => {
    const registered = Object.keys(createActivities({} as ActivityDependencies & Parameters<typeof createActivities>[0])).sort();
    expect(Object.keys(ACTIVITY_BINDINGS).sort()).toEqual(registered);
  });

  it("lets an operation's own workflow run its steps", () => {
    const id = randomUUID();
    for (const step of ['releaseWithdrawal', 'settleWithdrawal', 'rejectWithdrawal', 'broadcastWithdrawal', 'recordTravelRuleCompletion']) {
      expect(bindingRefusal(step, [id, 'reason'], withdrawalWorkflow(id))).toBeUndefined();
    }
  });

  it("refuses another operation's workflow, another workflow type and a workflow outside any operation", () => {
    const id = randomUUID();
    const other = randomUUID();
    expect(bindingRefusal('releaseWithdrawal', [id, 'x', 'FAILED'], withdrawalWorkflow(other))).toBe(
      `releaseWithdrawal for operation ${id} runs only in workflow crypto-withdrawal-${id} (cryptoWithdrawalWorkflow)`,
    );
    // The right id under another type: a workflow of someone else's code named like ours.
    expect(
      bindingRefusal('settleWithdrawal', [id], { workflowId: `crypto-withdrawal-${id}`, workflowType: 'sepaTransferWorkflow' }),
    ).toMatch(/runs only in workflow/);
    expect(
      bindingRefusal('rejectSepaTransfer', [id, 'AC04'], {
        workflowId: sepaTransferContract.workflowId(id),
        workflowType: cryptoWithdrawalContract.workflowType,
      }),
    ).toMatch(/runs only in workflow sepa-transfer-/);
    expect(bindingRefusal('settleSepaTransfer', [id], { workflowId: undefined, workflowType: undefined })).toMatch(/runs only in workflow/);
  });

  it('refuses arguments that name no operation, and activities it does not know', () => {
    const id = randomUUID();
    expect(bindingRefusal('releaseWithdrawal', [], withdrawalWorkflow(id))).toBe('releaseWithdrawal names no operation');
    expect(bindingRefusal('releaseWithdrawal', [{ id }], withdrawalWorkflow(id))).toBe('releaseWithdrawal names no operation');
    expect(bindingRefusal('releaseWithdrawal', ['x'.repeat(65)], withdrawalWorkflow(id))).toBe('releaseWithdrawal names no operation');
    expect(bindingRefusal('transferEverything', [id], withdrawalWorkflow(id))).toBe('no workflow may run the activity transferEverything');
    expect(bindingRefusal('__proto__', [id], withdrawalWorkflow(id))).toBe('no workflow may run the activity __proto__');
  });

  it('leaves the first money-moving steps to their own, stricter check (accepted-operation.guard.ts), which records what it refuses', () => {
    expect(bindingRefusal('reserveWithdrawal', [null], { workflowId: 'x', workflowType: 'y' })).toBeUndefined();
    expect(bindingRefusal('executeExchange', [{}], { workflowId: undefined, workflowType: undefined })).toBeUndefined();
  });

  it('lets the steps that only ask the chain or the bank, and the housekeeping ones, run for their workflow type only', () => {
    const anyId = { workflowId: 'whatever', workflowType: cryptoWithdrawalContract.workflowType };
    expect(bindingRefusal('pollWithdrawalConfirmation', [{ transactionHash: '0x1' }], anyId)).toBeUndefined();
    expect(bindingRefusal('pollBankAnswer', ['REF'], anyId)).toBe('pollBankAnswer runs only for sepaTransferWorkflow');
    expect(
      bindingRefusal('reconcileLedger', [], {
        workflowId: 'ledger-reconciliation-2026',
        workflowType: reconciliationContract.workflowType,
      }),
    ).toBeUndefined();
    expect(bindingRefusal('reconcileLedger', [], anyId)).toBe('reconcileLedger runs only for reconciliationWorkflow');
  });
});
