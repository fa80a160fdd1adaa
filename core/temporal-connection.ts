import fs from 'node:fs';
import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from './payload-codec';
import type { PayloadKey, RefusalHandling } from './payload-codec';

/** Every process's Temporal access (TLS, mTLS, API key, payload keys): none can read or write what another cannot. */
export interface TemporalAccess {
  /** Keys for payload encryption (first one encrypts); required by every client and worker. */
  payloadKeys: readonly PayloadKey[] | undefined;
  /** TLS towards the frontend (Temporal Cloud, a cluster behind TLS). */
  tls: boolean;
  /** mTLS: PEM files of this client's certificate and key. */
  tlsCertPath: string | undefined;
  tlsKeyPath: string | undefined;
  /** PEM file of a private CA that signed the server's certificate. */
  tlsCaPath: string | undefined;
  tlsServerName: string | undefined;
  /** Temporal Cloud API key; implies TLS. */
  apiKey: string | undefined;
}

export const PLAIN_TEMPORAL_ACCESS: TemporalAccess = {
  payloadKeys: undefined,
  tls: false,
  tlsCertPath: undefined,
  tlsKeyPath: undefined,
  tlsCaPath: undefined,
  tlsServerName: undefined,
  apiKey: undefined,
};

/** Always encrypted, development included: encryption tells our payloads from anyone else's (core/payload-codec.ts). */
export function temporalDataConverter(access: Pick<TemporalAccess, 'payloadKeys'>, refusal?: RefusalHandling): DataConverter {
  if (!access.payloadKeys) throw new Error('PAYLOAD_ENCRYPTION_KEYS must be set: Temporal payloads are never written or read in clear');
  return { payloadCodecs: [new AesGcmPayloadCodec(access.payloadKeys, refusal)] };
}

/** Connection options shared by `Connection.connect` (client) and `NativeConnection.connect` (worker). */
export function temporalConnectionOptions(
  address: string,
  access: TemporalAccess,
): {
  address: string;
  tls?: { serverNameOverride?: string; serverRootCACertificate?: Buffer; clientCertPair?: { crt: Buffer; key: Buffer } } | true;
  apiKey?: string;
} {
  const wantsTls = access.tls || access.apiKey !== undefined || access.tlsCertPath !== undefined || access.tlsCaPath !== undefined;
  if (!wantsTls) return { address };
  if ((access.tlsCertPath === undefined) !== (access.tlsKeyPath === undefined))
    throw new Error('TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH go together (mTLS needs both)');
  const tls = {
    ...(access.tlsServerName ? { serverNameOverride: access.tlsServerName } : {}),
    ...(access.tlsCaPath ? { serverRootCACertificate: fs.readFileSync(access.tlsCaPath) } : {}),
    ...(access.tlsCertPath && access.tlsKeyPath
      ? { clientCertPair: { crt: fs.readFileSync(access.tlsCertPath), key: fs.readFileSync(access.tlsKeyPath) } }
      : {}),
  };
  return { address, tls: Object.keys(tls).length > 0 ? tls : true, ...(access.apiKey ? { apiKey: access.apiKey } : {}) };
}
