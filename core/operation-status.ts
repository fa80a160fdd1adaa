/** Public status of every money movement, as history and withdrawal details show it. */
export type OperationStatus = 'IN_PROGRESS' | 'IN_PROGRESS_TR_DATA' | 'SUCCESSFUL' | 'UNSUCCESSFUL';
