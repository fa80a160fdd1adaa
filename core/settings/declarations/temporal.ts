import { setting } from '../setting';
import { flag, hostAndPort, list, name, optionalName, optionalSecretText, optionalText, payloadKeys, port } from '../values';

/** Temporal: where it is, how this process reaches it (core/temporal-connection.ts) and how payloads are encrypted. */
export const TEMPORAL_SETTINGS = {
  temporalAddress: setting(
    'TEMPORAL_ADDRESS',
    hostAndPort(),
    'Temporal frontend `host:port` (required for `npm run api`/`worker`/`sweeper`)',
    {
      shownDefault: 'dev server',
    },
  ),
  temporalNamespace: setting('TEMPORAL_NAMESPACE', name('default'), 'Temporal namespace'),
  temporalTaskQueue: setting('TEMPORAL_TASK_QUEUE', name('partner-payments'), 'task queue of the workflows'),
  temporalSweeperTaskQueue: setting(
    'TEMPORAL_SWEEPER_TASK_QUEUE',
    optionalName(),
    'task queue of the deposit sweeps, served only by `npm run sweeper`, the one process holding the deposit seeds',
    { shownDefault: '`TEMPORAL_TASK_QUEUE` + `-sweeper`' },
  ),
  temporal: {
    payloadKeys: setting(
      'PAYLOAD_ENCRYPTION_KEYS',
      payloadKeys(),
      '`id:base64key,…`, 32-byte AES-256-GCM keys; the first encrypts, all decrypt (see "Payload encryption"). `npm start` and `npm run start:cluster` keep a development key in `$DATA_DIR/payload-encryption-keys`',
      { secret: true, shownDefault: '(none; required by `npm run api`/`worker`/`sweeper`/`codec`)' },
    ),
    tls: setting('TEMPORAL_TLS', flag(), 'TLS towards the Temporal frontend (implied by a client certificate, a CA file or an API key)'),
    tlsCertPath: setting('TEMPORAL_TLS_CERT_PATH', optionalText(), "PEM file of this client's certificate (mTLS, e.g. Temporal Cloud)"),
    tlsKeyPath: setting('TEMPORAL_TLS_KEY_PATH', optionalText(), "PEM file of this client's key (mTLS: set with the certificate)"),
    tlsCaPath: setting('TEMPORAL_TLS_CA_PATH', optionalText(), "a private CA's PEM file, which signed the server's certificate"),
    tlsServerName: setting('TEMPORAL_TLS_SERVER_NAME', optionalText(), 'the server name to verify, when it differs from the address'),
    apiKey: setting('TEMPORAL_API_KEY', optionalText(), 'Temporal Cloud API key (implies TLS)', { secret: true }),
  },
};

/** The decode-only codec endpoint for the Web UI (`npm run codec`); off without a token. */
export const CODEC_SETTINGS = {
  codecEndpoint: {
    // 16 characters is what `npm start` accepts; `npm run codec` asks more of it (core/secret-strength.ts).
    token: setting(
      'CODEC_ENDPOINT_TOKEN',
      optionalSecretText(16),
      "the codec endpoint's token. `npm run codec` refuses to start, naming the rule, unless it has at least 32 characters, 10 different ones and an estimated 128 bits (length × log2 of the alphabet its character classes suggest: `core/secret-strength.ts`); make one with `openssl rand -hex 32`. `npm start` generates 64 hex digits, and takes a given one of 16+ characters with a warning when it is weaker",
      { secret: true, shownDefault: '(none; `npm start` makes one per start)' },
    ),
    port: setting('CODEC_PORT', port(8234), "where `npm run codec` (and `npm start`'s codec endpoint) listens"),
    host: setting('CODEC_HOST', optionalText(), 'the interface it listens on', { shownDefault: '`127.0.0.1` (`npm start`: `HOST`)' }),
    allowedOrigins: setting('CODEC_CORS_ORIGINS', list(), 'comma-separated browser origins allowed to call it with the token', {
      shownDefault: '(none)',
    }),
    trustedOrigins: setting(
      'CODEC_TRUSTED_ORIGINS',
      list(),
      "comma-separated browser origins whose pages it decodes for without the token: the Web UI's (which cannot send a header). Only for an endpoint nobody but operators' machines can reach (a client other than a browser can send any Origin); anyone else presents the token in `Authorization: Bearer`, never in a URL",
      { shownDefault: '(none; `npm start`: its dev UI)' },
    ),
    allowedHosts: setting(
      'CODEC_ALLOWED_HOSTS',
      list(),
      'comma-separated host names it answers besides addresses and `localhost` (a DNS-rebinding page sends its own name: 421)',
      { shownDefault: '(none)' },
    ),
  },
};
