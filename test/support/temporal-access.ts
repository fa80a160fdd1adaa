import { parsePayloadKeys } from '../../core/payload-codec';
import { PLAIN_TEMPORAL_ACCESS, temporalDataConverter } from '../../core/temporal-connection';
import type { TemporalAccess } from '../../core/temporal-connection';

/**
 * The run's payload encryption (global-setup makes one key per run and puts it in the
 * environment every test process and child inherits): every client and worker a test starts
 * reads and writes payloads as the stack's worker and API do.
 */
export function testTemporalAccess(): TemporalAccess {
  const keys = process.env.PAYLOAD_ENCRYPTION_KEYS;
  return { ...PLAIN_TEMPORAL_ACCESS, payloadKeys: keys ? parsePayloadKeys(keys) : undefined };
}

export function testDataConverter() {
  return temporalDataConverter(testTemporalAccess());
}
