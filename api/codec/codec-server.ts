import { timingSafeEqual, createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { guardedByHost } from '../../core/host-guard';
import { localUrl } from '../../core/listen-address';
import type { Logger } from '../../core/logger';

/**
 * The remote codec endpoint the Temporal Web UI calls to show operators decrypted payloads. Decode only: it can make no
 * payload Temporal would take as ours. A caller presents the token in `Authorization: Bearer` (the CLI's `--codec-auth`),
 * never in a URL, where the UI would hand it to every browser that opens it and every log would keep it; or is a page of
 * a trusted origin (the Web UI's, which cannot add a header), as its browser says. A browser never lets a page send
 * another origin than its own, and the Host guard keeps out pages of other sites that rebound their name to this address.
 */
export interface CodecServerOptions {
  codec: PayloadCodec;
  token: string;
  /** Origins allowed to call from a browser with the token, exactly as the browser sends them (CORS). */
  allowedOrigins: readonly string[];
  /**
   * Origins whose pages are decoded for without the token (the Web UI's): only for an endpoint that no one but operators'
   * machines can reach, since a client other than a browser can send any Origin.
   */
  trustedOrigins: readonly string[];
  /** Host names it answers besides addresses and localhost (CODEC_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  port: number;
  host: string;
  log: Logger;
}

export interface RunningCodecServer {
  /** The endpoint to give the Web UI (it appends `/decode`): no token in it. */
  endpointUrl: string;
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;
const MAX_PAYLOADS = 10_000;

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  if (options.token.length < 16) throw new Error('the codec endpoint token must be at least 16 characters');
  const tokenDigest = digest(options.token);
  const server = http.createServer(
    guardedByHost(
      (request, response) => {
        handle(request, response).catch((error: unknown) => {
          options.log.warn(`codec endpoint: ${error instanceof Error ? error.message : String(error)}`);
          if (!response.headersSent) reply(response, 400, { message: 'the payloads could not be decoded' });
          else response.destroy();
        });
      },
      { bindHost: options.host, names: options.allowedHosts, always: true },
    ),
  );

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const origin = request.headers.origin;
    const trusted = origin !== undefined && options.trustedOrigins.includes(origin);
    if (origin && (trusted || options.allowedOrigins.includes(origin))) {
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Vary', 'Origin');
      response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      response.setHeader('Access-Control-Allow-Headers', 'content-type, x-namespace, authorization');
      response.setHeader('Access-Control-Max-Age', '600');
    }
    if (request.method === 'OPTIONS') return reply(response, 204);
    // For orchestrators: says only that the process answers.
    if (request.method === 'GET' && request.url === '/health') return reply(response, 200, { status: 'ok' });
    if (new URL(request.url ?? '/', 'http://codec').pathname !== '/decode')
      return reply(response, 404, { message: 'not found: POST /decode (decode only)' });
    if (request.method !== 'POST') return reply(response, 405, { message: 'POST only' });
    const presented = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!trusted && (!presented || !timingSafeEqual(digest(presented), tokenDigest)))
      return reply(response, 401, { message: 'a valid codec token is required in Authorization: Bearer' });

    const body = await readBody(request);
    if (body === undefined) return reply(response, 413, { message: `at most ${MAX_BODY_BYTES} bytes` });
    const parsed = JSON.parse(body.toString('utf8')) as { payloads?: unknown };
    if (!Array.isArray(parsed.payloads) || parsed.payloads.length > MAX_PAYLOADS)
      return reply(response, 400, { message: `expected {"payloads": [...]} with at most ${MAX_PAYLOADS} payloads` });
    const decoded = await options.codec.decode((parsed.payloads as JsonPayload[]).map(fromJson));
    reply(response, 200, { payloads: decoded.map(toJson) });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpointUrl: localUrl(options.host, port),
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function reply(response: http.ServerResponse, status: number, body?: unknown): void {
  response.statusCode = status;
  if (body === undefined) return void response.end();
  response.setHeader('Content-Type', 'application/json');
  response.setHeader('Cache-Control', 'no-store');
  response.end(JSON.stringify(body));
}

async function readBody(request: http.IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function fromJson(payload: JsonPayload): Payload {
  const metadata: Record<string, Uint8Array> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {})) metadata[key] = Buffer.from(String(value), 'base64');
  return { metadata, data: Buffer.from(String(payload.data ?? ''), 'base64') };
}

function toJson(payload: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {}))
    metadata[key] = Buffer.from(value ?? new Uint8Array()).toString('base64');
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}
