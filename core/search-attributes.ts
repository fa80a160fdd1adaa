import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { SearchAttributePair } from '@temporalio/common';

/**
 * Search attributes every money-moving workflow carries, so operators can filter in the Web UI
 * (e.g. `PartnerId = "…" AND OperationStatus = "IN_PROGRESS_TR_DATA"`).
 */
export const PARTNER_ID = defineSearchAttributeKey('PartnerId', SearchAttributeType.KEYWORD);
export const OPERATION_TYPE = defineSearchAttributeKey('OperationType', SearchAttributeType.KEYWORD);
export const OPERATION_CURRENCY = defineSearchAttributeKey('OperationCurrency', SearchAttributeType.KEYWORD);
export const OPERATION_STATUS = defineSearchAttributeKey('OperationStatus', SearchAttributeType.KEYWORD);
/** Finer than the status, and says why an operation ended: REFUSED_INSUFFICIENT_FUNDS, CANCELLED, … */
export const OPERATION_STAGE = defineSearchAttributeKey('OperationStage', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTE_KEYS = [PARTNER_ID, OPERATION_TYPE, OPERATION_CURRENCY, OPERATION_STATUS, OPERATION_STAGE] as const;

/** What every money-moving workflow starts with; OperationStatus is then kept current by the workflow. */
export function operationSearchAttributes(partnerId: string, operationType: string, currency: string): SearchAttributePair[] {
  return [
    { key: PARTNER_ID, value: partnerId },
    { key: OPERATION_TYPE, value: operationType },
    { key: OPERATION_CURRENCY, value: currency },
    { key: OPERATION_STATUS, value: 'IN_PROGRESS' },
    { key: OPERATION_STAGE, value: 'RESERVING' },
  ];
}
