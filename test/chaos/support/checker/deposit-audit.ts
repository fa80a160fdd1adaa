import type { RunningEvmNode } from '../../../../dev/evm-node';
import { Decimal } from '../../../../core/money';
import { chainClient } from '../chain-control';
import type { PartnerClient } from '../client';
import { sleep } from '../client';
import type { ChainDepositLog } from '../deposits';
import type { History } from '../history';
import type { SimulatedPartner } from '../partners';
import { Random } from '../random';
import { anomaly } from './anomalies';
import type { Anomaly } from './anomalies';
import { historyOf } from './api-state';
import type { HistoryEntry } from './api-state';

/**
 * What each deposit the run sent must come to, from the client's log and the chain read directly:
 * - `credited`: its transaction succeeded on the chain as it stands, at or above the minimum: one
 *   SUCCESSFUL cryptoDeposit of exactly its amount, counted in the partner's balance;
 * - `refused`: it is on chain, below the minimum: recorded UNSUCCESSFUL, never credited;
 * - `absent`: not on the chain as it stands (a reorganisation took it with its block, the node
 *   refused it, it reverted): never credited.
 * A transaction seen in a block a reorganisation then removed leaves an UNSUCCESSFUL entry of its
 * amount, and may come back in a later block: UNSUCCESSFUL entries of a logged amount are allowed
 * whatever the outcome.
 */
export type DepositOutcome = 'credited' | 'refused' | 'absent';

export interface DepositExpectation {
  deposit: ChainDepositLog;
  outcome: DepositOutcome;
  block?: bigint;
}

const PENDING_BOUND_MS = 60_000;
const POLL_MS = 3_000;
/** Blocks past a deposit's confirmations before the wait for its history entry starts: the watcher reads in batches. */
const BLOCKS_OF_MARGIN = 3n;

/** Decides each deposit's outcome from the chain, then waits (bounded) until the API shows each credited or refused one final. */
export async function settleChainDeposits(input: {
  node: RunningEvmNode;
  client: PartnerClient;
  history: History;
  partners: readonly SimulatedPartner[];
  deposits: readonly ChainDepositLog[];
  confirmations: number;
  boundMs: number;
}): Promise<{ expectations: DepositExpectation[]; lines: string[] }> {
  const chain = chainClient(input.node);
  // Transactions still in the pool after the settle are mined within seconds (a block a second).
  const pendingUntil = input.history.now() + PENDING_BOUND_MS;
  const expectations: DepositExpectation[] = [];
  for (const deposit of input.deposits) {
    if (!deposit.hash) {
      expectations.push({ deposit, outcome: 'absent' });
      continue;
    }
    for (;;) {
      const receipt = await chain.getTransactionReceipt({ hash: deposit.hash }).catch(() => undefined);
      if (receipt) {
        const landed = receipt.status === 'success';
        expectations.push({
          deposit,
          outcome: !landed ? 'absent' : deposit.belowMinimum ? 'refused' : 'credited',
          block: receipt.blockNumber,
        });
        break;
      }
      const inPool = await chain.getTransaction({ hash: deposit.hash }).catch(() => undefined);
      if (!inPool || input.history.now() >= pendingUntil) {
        expectations.push({ deposit, outcome: 'absent' });
        break;
      }
      await sleep(1_000);
    }
  }
  const landedBlocks = expectations.flatMap((each) => (each.outcome === 'absent' || each.block === undefined ? [] : [each.block]));
  if (landedBlocks.length > 0) {
    const needed = landedBlocks.reduce((max, block) => (block > max ? block : max)) + BigInt(input.confirmations) + BLOCKS_OF_MARGIN;
    while ((await chain.getBlockNumber()) < needed && input.history.now() < pendingUntil + input.boundMs) await sleep(1_000);
  }

  const waitedFor = expectations.filter((each) => each.outcome !== 'absent');
  const deadline = input.history.now() + input.boundMs;
  const random = Random.stream(0, 'deposit-checker');
  let missing = waitedFor.length;
  for (;;) {
    const shown = new Map<number, HistoryEntry[]>();
    for (const partner of input.partners) shown.set(partner.index, await historyOf(input.client, partner, input.history, random));
    missing = waitedFor.filter((each) => !shownFinal(shown.get(each.deposit.partner) ?? [], each)).length;
    input.history.write('deposit-checker-poll', { missing, waitedFor: waitedFor.length });
    if (missing === 0 || input.history.now() >= deadline) break;
    await sleep(POLL_MS);
  }
  const count = (outcome: DepositOutcome) => expectations.filter((each) => each.outcome === outcome).length;
  input.history.write('deposit-expectations', {
    expectations: expectations.map((each) => ({ n: each.deposit.n, outcome: each.outcome, block: each.block?.toString() })),
  });
  return {
    expectations,
    lines: [
      `chain deposits: ${input.deposits.length} sent, ${count('credited')} to credit, ${count('refused')} below the minimum, ${count('absent')} not on chain; ${missing} not final in the history by the bound`,
    ],
  };
}

function shownFinal(entries: readonly HistoryEntry[], expectation: DepositExpectation): boolean {
  const status = expectation.outcome === 'credited' ? 'SUCCESSFUL' : 'UNSUCCESSFUL';
  return entries.some((entry) => isDepositOf(entry, expectation.deposit) && entry.status === status);
}

function isDepositOf(entry: HistoryEntry, deposit: ChainDepositLog): boolean {
  return entry.type === 'cryptoDeposit' && entry.currency === deposit.currency && new Decimal(entry.amount).equals(deposit.amount);
}

/**
 * The partner's cryptoDeposit entries against the run's chain deposits (the setup's own deposits
 * are checked beside these, in money.ts): each credited one SUCCESSFUL exactly once, each refused
 * one recorded UNSUCCESSFUL, none of the others SUCCESSFUL, and no SUCCESSFUL entry that no deposit
 * explains. Returns the entries it explained, so the caller checks what is left against the setup.
 */
export function checkChainDeposits(
  partner: number,
  entries: readonly HistoryEntry[],
  expectations: readonly DepositExpectation[],
): { anomalies: Anomaly[]; explained: Set<string> } {
  const anomalies: Anomaly[] = [];
  const explained = new Set<string>();
  const about = { partner };
  for (const expectation of expectations.filter((each) => each.deposit.partner === partner)) {
    const { deposit } = expectation;
    const matching = entries.filter((entry) => isDepositOf(entry, deposit));
    for (const entry of matching) explained.add(entry.id);
    const successful = matching.filter((entry) => entry.status === 'SUCCESSFUL');
    const name = `chain deposit ${deposit.n} (${deposit.amount} ${deposit.currency}, ${deposit.hash ?? 'not sent'})`;
    if (expectation.outcome === 'credited') {
      if (successful.length === 0) anomalies.push(anomaly('lost', `${name} is on chain but was not credited`, about));
      if (successful.length > 1) anomalies.push(anomaly('doubled', `${name} was credited ${successful.length} times`, about));
    } else if (successful.length > 0) {
      anomalies.push(
        anomaly(
          'phantom',
          `${name} was credited, yet it is ${expectation.outcome === 'refused' ? 'below the minimum' : 'not on chain'}`,
          about,
        ),
      );
    }
    if (expectation.outcome === 'refused' && !matching.some((entry) => entry.status === 'UNSUCCESSFUL'))
      anomalies.push(anomaly('lost', `${name} is on chain below the minimum but the history does not show it UNSUCCESSFUL`, about));
    const open = matching.find((entry) => entry.status !== 'SUCCESSFUL' && entry.status !== 'UNSUCCESSFUL');
    if (open) anomalies.push(anomaly('stuck', `${name} is still ${open.status}`, about));
  }
  return { anomalies, explained };
}
