import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { SearchAttributePair } from '@temporalio/common';
import type { OPERATION_TYPES, OperationType } from './operation-types';

/** An OperationType search attribute value, as the registry lists them (core/operation-types.ts). */
type OperationSearchValue = (typeof OPERATION_TYPES)[OperationType]['searchAttributeValues'][number];

/** What operators filter on in the Web UI, e.g. `PartnerId = "…" AND OperationStatus = "IN_PROGRESS_TR_DATA"`. */
export const PARTNER_ID = defineSearchAttributeKey('PartnerId', SearchAttributeType.KEYWORD);
export const OPERATION_TYPE = defineSearchAttributeKey('OperationType', SearchAttributeType.KEYWORD);
export const OPERATION_CURRENCY = defineSearchAttributeKey('OperationCurrency', SearchAttributeType.KEYWORD);
export const OPERATION_STATUS = defineSearchAttributeKey('OperationStatus', SearchAttributeType.KEYWORD);
/** Finer than the status, and says why an operation ended: REFUSED_INSUFFICIENT_FUNDS, CANCELLED, … */
export const OPERATION_STAGE = defineSearchAttributeKey('OperationStage', SearchAttributeType.KEYWORD);

/** The static summary again: the Web UI's list shows search attributes, not summaries. Set once at the start; no personal data. */
export const OPERATION_SUMMARY = defineSearchAttributeKey('OperationSummary', SearchAttributeType.KEYWORD);
/** SQL visibility stores a keyword in a varchar(255): a longer summary is cut. */
const MAX_SUMMARY_LENGTH = 200;

export const SEARCH_ATTRIBUTE_KEYS = [
  PARTNER_ID,
  OPERATION_TYPE,
  OPERATION_CURRENCY,
  OPERATION_STATUS,
  OPERATION_STAGE,
  OPERATION_SUMMARY,
] as const;

/** What every money-moving workflow starts with; OperationStatus and OperationStage are then kept current by the workflow. */
export function operationSearchAttributes(
  partnerId: string,
  operationType: OperationSearchValue,
  currency: string,
  summary?: string,
): SearchAttributePair[] {
  const attributes: SearchAttributePair[] = [
    { key: PARTNER_ID, value: partnerId },
    { key: OPERATION_TYPE, value: operationType },
    { key: OPERATION_CURRENCY, value: currency },
    { key: OPERATION_STATUS, value: 'IN_PROGRESS' },
    { key: OPERATION_STAGE, value: 'RESERVING' },
  ];
  if (summary !== undefined) {
    const cut = summary.length > MAX_SUMMARY_LENGTH ? `${summary.slice(0, MAX_SUMMARY_LENGTH - 1)}…` : summary;
    attributes.push({ key: OPERATION_SUMMARY, value: cut });
  }
  return attributes;
}
