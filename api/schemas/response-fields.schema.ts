import { z } from 'zod';
import type { OperationStatus } from '../../core/operation-status';

/** Fields several response bodies share (each body itself lives in the route that answers it). */

export const OPERATION_STATUSES = [
  'IN_PROGRESS',
  'IN_PROGRESS_TR_DATA',
  'SUCCESSFUL',
  'UNSUCCESSFUL',
] as const satisfies readonly OperationStatus[];

/** One schema object, so the document describes it once (components/schemas/OperationStatus). */
export const operationStatusField = z.enum(OPERATION_STATUSES).meta({
  id: 'OperationStatus',
  description:
    'IN_PROGRESS: under way; IN_PROGRESS_TR_DATA: waiting for travel-rule data; SUCCESSFUL: done; UNSUCCESSFUL: failed or refused, any held funds released.',
});

export const idField = (description: string, example: string) => z.uuid().meta({ description, examples: [example] });

export const timestampField = (description: string, example: string) => z.iso.datetime().meta({ description, examples: [example] });

export const nullableText = (description: string, example: string | null) =>
  z
    .string()
    .nullable()
    .meta({ description, examples: [example] });
