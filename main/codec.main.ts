/** The Web UI's codec endpoint (`npm run codec`), decode only: point the UI at `http://HOST:CODEC_PORT/<token>`. */
import { startCodecServer } from '../api/codec/codec-server';
import { AesGcmPayloadCodec } from '../core/payload-codec';
import { InvalidSettingsError } from '../core/settings';
import { exitOnFailure, loadProcessSettings, mainLogger, onShutdownSignal, requireSetting, requireStrongSecret } from './process-support';

async function main(): Promise<void> {
  const settings = loadProcessSettings();
  const log = mainLogger('codec', settings);
  const keys = requireSetting(settings.temporal.payloadKeys, 'PAYLOAD_ENCRYPTION_KEYS');
  // Whoever holds it reads every payload in clear: production refuses a token that could be guessed (core/secret-strength.ts).
  const token = requireStrongSecret(settings.codecEndpoint.token, 'CODEC_ENDPOINT_TOKEN');
  const server = await startCodecServer({
    // A payload that is not ours shows as refused instead of failing the page's whole batch.
    codec: new AesGcmPayloadCodec(keys, { refused: 'mark' }),
    token,
    allowedOrigins: settings.codecEndpoint.allowedOrigins,
    trustedOrigins: settings.codecEndpoint.trustedOrigins,
    allowedHosts: settings.codecEndpoint.allowedHosts,
    port: settings.codecEndpoint.port,
    host: settings.codecEndpoint.host,
    log,
  });
  log.info(`codec endpoint listening on ${settings.codecEndpoint.host}:${settings.codecEndpoint.port} (decode only)`);
  onShutdownSignal(log, () => server.stop());
}

main().catch(exitOnFailure([InvalidSettingsError]));
