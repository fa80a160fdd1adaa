import { sepaTransferContract } from '../contracts';
import type { ReceiverType } from '../core/counterparty';
import { operationSearchAttributes } from '../core/search-attributes';
import type { AcceptedSepaTransfer } from '../db/queries/accepted-operation.queries';
import type { OperationDependencies } from './dependencies';
import { startAndAwaitReservation } from './temporal/workflow-runner';
import { partnerLabelOf, sepaTransferMetadata } from './temporal/workflow-summary';
import { refuseWithoutFunds } from './early-refusal';

export interface SepaTransferRequest {
  partnerId: string;
  /** The same on every replay of an Idempotency-Key. */
  transferId: string;
  amount: string;
  receiverType: ReceiverType;
  receiverFirstName?: string | undefined;
  receiverLastName?: string | undefined;
  companyName?: string | undefined;
  destinationIban: string;
  transferTitle: string;
}

/** Sends a SEPA credit transfer; returns once the amount is reserved (the bank is not awaited). */
export async function sendSepaTransfer(deps: OperationDependencies, request: SepaTransferRequest): Promise<{ transferId: string }> {
  const { partnerId, transferId } = request;
  const accepted: AcceptedSepaTransfer = {
    amount: request.amount,
    receiver_type: request.receiverType,
    receiver_first_name: request.receiverFirstName ?? null,
    receiver_last_name: request.receiverLastName ?? null,
    company_name: request.companyName ?? null,
    destination_iban: request.destinationIban,
    transfer_title: request.transferTitle,
  };
  const metadata = sepaTransferMetadata(transferId, accepted, await partnerLabelOf(deps.pool, partnerId));
  await startAndAwaitReservation(deps.temporal, {
    contract: sepaTransferContract,
    args: [{ transferId }],
    searchAttributes: operationSearchAttributes(partnerId, 'sepa-transfer', 'eur', metadata.plainSummary),
    metadata,
    operation: { type: 'sepa-transfer', id: transferId, partnerId },
    request: accepted,
    // A SEPA transfer holds its amount (no fee).
    refuseEarly: () => refuseWithoutFunds(deps.pool, { kind: 'sepa-transfer', partnerId, currency: 'eur', held: request.amount }),
  });
  return { transferId };
}
