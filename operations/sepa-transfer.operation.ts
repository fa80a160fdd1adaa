import { sepaTransferContract } from '../contracts';
import type { ReceiverType } from '../core/counterparty';
import { operationSearchAttributes } from '../core/search-attributes';
import type { OperationDependencies } from './dependencies';
import { startAndAwaitReservation } from './temporal/workflow-runner';

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
  await startAndAwaitReservation(deps.temporal, {
    contract: sepaTransferContract,
    args: [
      {
        transferId,
        partnerId,
        amount: request.amount,
        receiverType: request.receiverType,
        receiverFirstName: request.receiverFirstName ?? null,
        receiverLastName: request.receiverLastName ?? null,
        companyName: request.companyName ?? null,
        destinationIban: request.destinationIban,
        transferTitle: request.transferTitle,
      },
    ],
    searchAttributes: operationSearchAttributes(partnerId, 'sepa-transfer', 'eur'),
    operation: { id: transferId, ledgerKind: 'SEPA_TRANSFER' },
  });
  return { transferId };
}
