import pg from 'pg';

/** Notified by the api_key trigger when a change commits. */
const CHANNEL = 'api_key_changed';

/** The payload that stands for every key (after a TRUNCATE); any other payload is one key's hash. */
export const EVERY_API_KEY = '*';

/** `created:<hash>`: a hash that now belongs to an active key (inserted, or made active by an update). */
const CREATED_PREFIX = 'created:';

export interface ApiKeyChangeHandlers {
  /** A key was revoked, deleted or rewritten: its hash, or EVERY_API_KEY. */
  changed(keyHash: string): void;
  /** A hash became an active key's: whoever remembered it as unknown must forget that. */
  created(keyHash: string): void;
  /** LISTEN is in place (first connect or reconnect): every change from now on is reported. */
  listening(): void;
  /** The connection is gone, or could not be made: changes until the next `listening` may never be reported. */
  lost(reason: string): void;
}

export interface ApiKeyChangeOptions {
  connectionString: string;
  /** Shown in pg_stat_activity; tests use it to find this connection. */
  applicationName: string;
  /** A query on the connection this often proves it alive; a silent network loss is found within about this long. */
  heartbeatMs: number;
  /** Waits between reconnect attempts: from the first, doubling up to the last. */
  reconnectDelayMs: { first: number; max: number };
}

export interface ApiKeyChangeListener {
  stop(): Promise<void>;
}

/** A connection that LISTENs for API key changes, reconnecting with backoff until stopped; resolves after the first attempt. */
export async function listenForApiKeyChanges(options: ApiKeyChangeOptions, handlers: ApiKeyChangeHandlers): Promise<ApiKeyChangeListener> {
  let stopped = false;
  let current: pg.Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let heartbeatTimer: NodeJS.Timeout | undefined;
  let delayMs = options.reconnectDelayMs.first;

  const scheduleReconnect = () => {
    if (stopped || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      void connect();
    }, delayMs);
    reconnectTimer.unref();
    delayMs = Math.min(delayMs * 2, options.reconnectDelayMs.max);
  };

  /** Reported once per connection: an error and the end that follows it are one loss. */
  const lose = (client: pg.Client, reason: string) => {
    if (client !== current) return;
    current = undefined;
    clearInterval(heartbeatTimer);
    handlers.lost(reason);
    client.end().catch(() => undefined);
    scheduleReconnect();
  };

  const connect = async (): Promise<void> => {
    const client = new pg.Client({
      connectionString: options.connectionString,
      application_name: options.applicationName,
      keepAlive: true,
      connectionTimeoutMillis: options.heartbeatMs,
      query_timeout: options.heartbeatMs,
    });
    client.on('error', (error) => lose(client, error.message));
    client.on('end', () => lose(client, 'connection ended'));
    client.on('notification', (message) => {
      if (client !== current || message.channel !== CHANNEL || !message.payload) return;
      if (message.payload.startsWith(CREATED_PREFIX)) handlers.created(message.payload.slice(CREATED_PREFIX.length));
      else handlers.changed(message.payload);
    });
    try {
      await client.connect();
      current = client;
      await client.query(`listen ${CHANNEL}`);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (current === client) {
        lose(client, reason);
      } else {
        client.end().catch(() => undefined);
        if (!stopped) handlers.lost(reason);
        scheduleReconnect();
      }
      return;
    }
    if (stopped || current !== client) {
      await client.end().catch(() => undefined);
      return;
    }
    delayMs = options.reconnectDelayMs.first;
    handlers.listening();
    heartbeatTimer = setInterval(() => {
      client
        .query('select 1')
        .catch((error: unknown) => lose(client, `heartbeat failed: ${error instanceof Error ? error.message : String(error)}`));
    }, options.heartbeatMs);
    heartbeatTimer.unref();
  };

  await connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(reconnectTimer);
      clearInterval(heartbeatTimer);
      const client = current;
      current = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
