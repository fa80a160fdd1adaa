import { Client } from '@temporalio/client';
import { connectClosable } from '../operations/temporal/closable-connection';
import { joinHostPort, reachableHost } from '../core/listen-address';
import type { Settings } from '../core/settings';
import { temporalConnectionOptions, temporalDataConverter } from '../core/temporal-connection';
import { withDevelopmentPayloadKey } from './development-payload-key';
import type { TemporalAccess } from './ops-command';

/** TEMPORAL_ADDRESS, else the dev server `npm start` runs on TEMPORAL_PORT. */
export async function connectTemporal(settings: Settings): Promise<TemporalAccess> {
  const address = settings.temporalAddress ?? joinHostPort(reachableHost(settings.development.host), settings.development.temporalPort);
  try {
    const access = withDevelopmentPayloadKey(settings, { create: false }).temporal;
    // Against a configured Temporal (production) the CLI writes payloads (travel-rule data): never in clear.
    if (settings.temporalAddress && !access.payloadKeys)
      return { address, unreachable: 'PAYLOAD_ENCRYPTION_KEYS must be set to talk to a configured Temporal (TEMPORAL_ADDRESS)' };
    const { connection, close } = await connectClosable({ ...temporalConnectionOptions(address, access), connectTimeout: '5 seconds' });
    return {
      address,
      connection,
      close,
      client: new Client({ connection, namespace: settings.temporalNamespace, dataConverter: temporalDataConverter(access) }),
    };
  } catch (error) {
    return { address, unreachable: `Temporal at ${address} cannot be reached (${error instanceof Error ? error.message : String(error)})` };
  }
}
