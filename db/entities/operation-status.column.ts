import type { OperationStatus } from '../../core/operation-status';

/** The values of every `status` column, in the order of the migrations' CHECK constraints. */
export const OPERATION_STATUSES: OperationStatus[] = ['IN_PROGRESS', 'IN_PROGRESS_TR_DATA', 'SUCCESSFUL', 'UNSUCCESSFUL'];
