import { sepaTransferContract } from '../contracts';
import type { SepaTransferInput } from '../contracts';
import type { ReceiverType } from '../core/counterparty';
import { operationSearchAttributes } from '../core/search-attributes';
import type { OperationDependencies } from './dependencies';
import { startAndAwaitReservation } from './temporal/workflow-runner';
import { partnerLabelOf, sepaTransferMetadata } from './temporal/workflow-summary';

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
  const input: SepaTransferInput = {
    transferId,
    partnerId,
    amount: request.amount,
    receiverType: request.receiverType,
    receiverFirstName: request.receiverFirstName ?? null,
    receiverLastName: request.receiverLastName ?? null,
    companyName: request.companyName ?? null,
    destinationIban: request.destinationIban,
    transferTitle: request.transferTitle,
  };
  const metadata = sepaTransferMetadata(input, await partnerLabelOf(deps.pool, partnerId));
  await startAndAwaitReservation(deps.temporal, {
    contract: sepaTransferContract,
    args: [input],
    searchAttributes: operationSearchAttributes(partnerId, 'sepa-transfer', 'eur', metadata.plainSummary),
    metadata,
    operation: { type: 'sepa-transfer', id: transferId, partnerId },
  });
  return { transferId };
}
