import { CHAOS_CONFIRMATIONS } from '../chaos-settings';
import type { ChaosStack } from '../chaos-stack';
import type { PartnerClient } from '../client';
import type { ChainDepositLog } from '../deposits';
import type { History } from '../history';
import type { OperationLog } from '../load';
import type { OperatorRecord } from '../operators';
import type { SimulatedPartner, WithdrawalCurrency } from '../partners';
import { anomaly } from './anomalies';
import type { Anomaly } from './anomalies';
import { readFinalStates } from './api-state';
import type { ApiView } from './api-state';
import { auditBank } from './bank-audit';
import { auditBitcoin } from './bitcoin-audit';
import { auditChain } from './chain-audit';
import { auditLedger } from './ledger-audit';
import { settleChainDeposits } from './deposit-audit';
import { checkFinal, checkMoney } from './money';
import { postMortem } from './post-mortem';

/**
 * The checker, after the nemesis stopped and the load's last answers are in. It believes the
 * clients' own log (what was sent, what was answered), and asks the rest from what it is not
 * testing, or as a partner would: the API through partners' keys, the chain through its node,
 * the bank through its table, the books through the ledger check and the service's reconciliation.
 */

/** Every accepted operation must be final this long after the load stopped (the nemesis stopped earlier still). */
export const FINAL_BOUND_MS = 300_000;

export interface CheckInput {
  stack: ChaosStack;
  client: PartnerClient;
  history: History;
  partners: readonly SimulatedPartner[];
  fees: Readonly<Record<WithdrawalCurrency, string>>;
  operations: readonly OperationLog[];
  operatorRecords: readonly OperatorRecord[];
  /** What the run's depositor sent on chain, as its log says. */
  deposits: readonly ChainDepositLog[];
}

export interface CheckResult {
  anomalies: Anomaly[];
  view: ApiView;
  lines: string[];
}

export async function checkRun(input: CheckInput): Promise<CheckResult> {
  const accepted = input.operations.filter((operation) => operation.operationId !== undefined);
  const step = (line: string) => {
    input.history.write('checker', { line });
    process.stderr.write(`checker: ${line}\n`);
  };
  const anomalies: Anomaly[] = [];
  const lines: string[] = [];

  // Answers a client never got, even after the settle: the API left a key without an answer.
  for (const operation of input.operations.filter((each) => each.status === 'gave-up')) {
    anomalies.push(
      anomaly('stuck', `${operation.kind} key ${operation.key} got no answer but 503s and errors, also after the settle`, {
        op: operation.op,
      }),
    );
  }
  for (const answer of input.client.unexpected) {
    anomalies.push(
      anomaly('unexpected-answer', `${answer.status} to ${answer.path}: ${answer.body}`, answer.op > 0 ? { op: answer.op } : {}),
    );
  }

  step(`deciding what ${input.deposits.length} chain deposits come to, and waiting for their history entries`);
  const deposits = await settleChainDeposits({
    node: input.stack.evm,
    client: input.client,
    history: input.history,
    partners: input.partners,
    deposits: input.deposits,
    confirmations: CHAOS_CONFIRMATIONS,
    boundMs: FINAL_BOUND_MS,
  });
  lines.push(...deposits.lines);

  step(`waiting up to ${FINAL_BOUND_MS / 1000} s for ${accepted.length} accepted operations to be final`);
  const started = input.history.now();
  const { view, anomalies: readProblems } = await readFinalStates({ ...input, accepted, boundMs: FINAL_BOUND_MS });
  anomalies.push(...readProblems, ...checkFinal(accepted, view, FINAL_BOUND_MS));
  lines.push(
    `final states: ${view.finalAt.size} of ${accepted.length} accepted operations final, the last ${Math.round((input.history.now() - started) / 1000)} s after the load stopped`,
  );

  step("conservation per partner, history against the clients' log");
  anomalies.push(
    ...checkMoney({ partners: input.partners, operations: input.operations, fees: input.fees, view, chainDeposits: deposits.expectations }),
  );
  anomalies.push(...checkOperatorOutcomes(input.operatorRecords, input.operations, view));

  step('reading the chains');
  const chain = await auditChain(input.stack.evm, input.operations, view);
  anomalies.push(...chain.anomalies);
  lines.push(`ethereum: ${chain.transactions} transactions from the hot wallet in ${chain.blocks} blocks`);
  const bitcoin = await auditBitcoin(input.stack.bitcoin, input.operations, view);
  anomalies.push(...bitcoin.anomalies);
  lines.push(`bitcoin: ${bitcoin.transactions} transactions from the hot wallet in ${bitcoin.blocks} blocks`);

  step("reading the simulated bank's table");
  const bank = await auditBank(input.stack.fault.databaseUrl, input.operations, view);
  anomalies.push(...bank.anomalies);
  lines.push(`bank: ${bank.payments} payments received`);

  step('ledger check and reconciliation');
  const ledger = await auditLedger({ databaseUrl: input.stack.fault.databaseUrl, temporalAddress: input.stack.fault.temporalAddress });
  anomalies.push(...ledger.anomalies);
  lines.push(`ledger: ${ledger.summary}`);

  // While the stack (and the chain's memory) is still there: the service's own view of what went wrong.
  const troubled = new Set(anomalies.flatMap((found) => (found.op === undefined ? [] : [found.op])));
  lines.push(
    ...(await postMortem(
      input.stack,
      input.history,
      accepted.filter((operation) => troubled.has(operation.op)),
    ).catch((error: unknown) => [`post-mortem failed: ${String(error)}`])),
  );
  return { anomalies, view, lines };
}

/** What an operator did must show: a completed travel rule ends SUCCESSFUL, a cancelled wait UNSUCCESSFUL. */
function checkOperatorOutcomes(records: readonly OperatorRecord[], operations: readonly OperationLog[], view: ApiView): Anomaly[] {
  const found: Anomaly[] = [];
  const byOp = new Map(operations.map((operation) => [operation.op, operation]));
  for (const record of records) {
    const operation = byOp.get(record.op);
    const status = view.withdrawals.get(record.operationId)?.status;
    if (!operation?.travelRuleWait || record.result !== 'done' || status === undefined) continue;
    const meant = record.action === 'complete-travel-rule' ? 'SUCCESSFUL' : 'UNSUCCESSFUL';
    if (status !== meant) {
      found.push(
        anomaly('wrong-state', `withdrawal ${record.operationId}: the operator's ${record.action} was accepted, yet it is ${status}`, {
          op: record.op,
        }),
      );
    }
  }
  return found;
}
