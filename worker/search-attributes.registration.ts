import { Connection } from '@temporalio/client';
import { connectPatiently } from '../core/patient-connect';
import { SEARCH_ATTRIBUTE_KEYS } from '../core/search-attributes';
import type { Logger } from '../core/logger';
import { PLAIN_TEMPORAL_ACCESS, temporalConnectionOptions } from '../core/temporal-connection';
import type { TemporalAccess } from '../core/temporal-connection';

/** Idempotent: a production cluster gets the same attributes the dev server is started with. */
export async function registerSearchAttributes(
  address: string,
  namespace: string,
  log: Logger,
  access: TemporalAccess = PLAIN_TEMPORAL_ACCESS,
): Promise<void> {
  const connection = await connectPatiently('search attributes', () => Connection.connect(temporalConnectionOptions(address, access)), log);
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const known = new Set(Object.keys(existing.customAttributes ?? {}));
    const missing = SEARCH_ATTRIBUTE_KEYS.filter((key) => !known.has(key.name));
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((key) => [key.name, 2 /* INDEXED_VALUE_TYPE_KEYWORD */])),
    });
    log.info(`registered search attributes ${missing.map((key) => key.name).join(', ')}`);
  } finally {
    await connection.close();
  }
}
