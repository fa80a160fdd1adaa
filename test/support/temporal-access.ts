import path from 'node:path';
import { loadSettings } from '../../core/settings';
import { PLAIN_TEMPORAL_ACCESS, temporalDataConverter } from '../../core/temporal-connection';
import type { TemporalAccess } from '../../core/temporal-connection';

/**
 * The run's payload encryption (global-setup makes one key per run and puts it in the
 * environment every test process and child inherits): every client and worker a test starts
 * reads and writes payloads as the stack's worker and API do.
 */
export function testTemporalAccess(): TemporalAccess {
  const { payloadKeys } = loadSettings(process.env, path.resolve(__dirname, '../..')).temporal;
  return { ...PLAIN_TEMPORAL_ACCESS, payloadKeys };
}

export function testDataConverter() {
  return temporalDataConverter(testTemporalAccess());
}
