import type { PartnerClient } from '../client';
import { sleep } from '../client';
import type { History } from '../history';
import type { OperationLog } from '../load';
import { isWithdrawal } from '../operations';
import type { SimulatedPartner } from '../partners';
import { Random } from '../random';
import { anomaly } from './anomalies';
import type { Anomaly } from './anomalies';

/**
 * What the API reports once the nemesis has stopped: each partner's history (every month the run
 * touched), its balances, and each accepted withdrawal's details. Read as a partner reads them,
 * through the partner's own key, and polled until every accepted operation is final or the bound
 * has passed.
 */

export interface HistoryEntry {
  id: string;
  type: string;
  amount: string;
  currency: string;
  amountFrom?: string;
  currencyFrom?: string;
  status: string;
  withdrawalId?: string;
}

export interface WithdrawalDetails {
  status: string;
  transactionHash?: string;
  amount: string;
  fee: string;
  destination: string;
}

export interface ApiView {
  history: Map<number, HistoryEntry[]>;
  balances: Map<number, Record<string, string>>;
  withdrawals: Map<string, WithdrawalDetails>;
  /** When each accepted operation was first seen final (ms of the run). */
  finalAt: Map<string, number>;
}

const FINAL = new Set(['SUCCESSFUL', 'UNSUCCESSFUL']);
const POLL_MS = 3_000;

/** Waits until every accepted operation is final in its partner's history, or `boundMs` has passed; then reads balances and details. */
export async function readFinalStates(input: {
  client: PartnerClient;
  history: History;
  partners: readonly SimulatedPartner[];
  accepted: readonly OperationLog[];
  boundMs: number;
}): Promise<{ view: ApiView; anomalies: Anomaly[] }> {
  const { client, history, partners, accepted } = input;
  const random = Random.stream(0, 'checker');
  const view: ApiView = { history: new Map(), balances: new Map(), withdrawals: new Map(), finalAt: new Map() };
  const deadline = history.now() + input.boundMs;
  const anomalies: Anomaly[] = [];
  for (;;) {
    for (const partner of partners) view.history.set(partner.index, await historyOf(client, partner, history, random));
    const statuses = new Map([...view.history.values()].flat().map((entry) => [entry.id, entry.status]));
    for (const operation of accepted) {
      if (FINAL.has(statuses.get(operation.operationId!) ?? '') && !view.finalAt.has(operation.operationId!)) {
        view.finalAt.set(operation.operationId!, history.now());
      }
    }
    const open = accepted.filter((operation) => !view.finalAt.has(operation.operationId!));
    history.write('checker-poll', { open: open.length, accepted: accepted.length });
    if (open.length === 0 || history.now() >= deadline) break;
    await sleep(POLL_MS);
  }
  for (const partner of partners) {
    const answer = await client.send(
      { op: -1, apiKey: partner.apiKey, method: 'GET', path: '/v1/partner/balances', firstApi: 0, maxAttempts: 10 },
      random,
    );
    if (answer.status !== 200 || !answer.body || Array.isArray(answer.body)) {
      anomalies.push(anomaly('stuck', `partner ${partner.index}: GET balances answered ${answer.status}`, { partner: partner.index }));
      continue;
    }
    const body = answer.body as {
      fiatBalances: Array<{ name: string; amount: string }>;
      cryptoBalances: Array<{ name: string; amount: string }>;
    };
    view.balances.set(
      partner.index,
      Object.fromEntries([...body.fiatBalances, ...body.cryptoBalances].map((balance) => [balance.name, balance.amount])),
    );
  }
  for (const operation of accepted.filter((each) => isWithdrawal(each.kind))) {
    const partner = partners[operation.partner]!;
    const answer = await client.send(
      {
        op: operation.op,
        apiKey: partner.apiKey,
        method: 'GET',
        path: `/v1/crypto-withdrawal/details/${operation.operationId}`,
        firstApi: 0,
        maxAttempts: 10,
      },
      random,
    );
    if (answer.status !== 200 || !answer.body || Array.isArray(answer.body)) {
      anomalies.push(anomaly('lost', `withdrawal ${operation.operationId}: details answered ${answer.status}`, { op: operation.op }));
      continue;
    }
    const body = answer.body as Record<string, unknown>;
    view.withdrawals.set(operation.operationId!, {
      status: String(body.status),
      ...(typeof body.transactionHash === 'string' && body.transactionHash ? { transactionHash: body.transactionHash } : {}),
      amount: String(body.amount),
      fee: String(body.fee),
      destination: String(body.destination),
    });
  }
  return { view, anomalies };
}

/** Every entry of the months the run touched (UTC), as the partner reads them. */
export async function historyOf(
  client: PartnerClient,
  partner: SimulatedPartner,
  history: History,
  random: Random,
): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = [];
  for (const { month, year } of monthsBetween(new Date(history.startedAt), new Date())) {
    const answer = await client.send(
      {
        op: -1,
        apiKey: partner.apiKey,
        method: 'GET',
        path: `/v1/partner/transaction-history/${month}/${year}`,
        firstApi: 0,
        maxAttempts: 10,
        logAnswerBody: false,
      },
      random,
    );
    if (answer.status !== 200 || !Array.isArray(answer.body))
      throw new Error(`partner ${partner.index}: history ${month}/${year} answered ${answer.status}`);
    entries.push(...(answer.body as HistoryEntry[]));
  }
  return entries;
}

function monthsBetween(from: Date, to: Date): Array<{ month: number; year: number }> {
  const months: Array<{ month: number; year: number }> = [];
  for (
    let year = from.getUTCFullYear(), month = from.getUTCMonth();
    year < to.getUTCFullYear() || (year === to.getUTCFullYear() && month <= to.getUTCMonth());
  ) {
    months.push({ month: month + 1, year });
    month += 1;
    if (month === 12) {
      month = 0;
      year += 1;
    }
  }
  return months;
}
