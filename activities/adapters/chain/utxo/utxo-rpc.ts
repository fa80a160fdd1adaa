/**
 * A UTXO node's JSON-RPC (Bitcoin Core and its forks, and btcd, whose answers differ in places noted below), credentials
 * taken from the URL's user info and never repeated in an error. Every answer is checked for the shape we use before use.
 */

/** The node answered with an error object: its code and message (Bitcoin Core's RPC error codes). */
export class UtxoRpcError extends Error {
  override readonly name = 'UtxoRpcError';

  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (code ${code})`);
  }
}

/** Bitcoin Core's "method not found" (btcd answers -32601 too, or -1 with "Method not found"). */
const METHOD_NOT_FOUND = -32601;
/** "No such mempool or blockchain transaction" (btcd: -5 as well). */
const NO_SUCH_TRANSACTION = -5;
/** How long one call may take; a block with its transactions is the largest answer. */
const CALL_TIMEOUT_MS = 20_000;
/** The largest answer read: a full block with every transaction in hex stays well below. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

export interface UtxoBlock {
  hash: string;
  height: number;
  previousHash: string | null;
  /** Each transaction's serialization in hex, in block order. */
  transactions: string[];
}

export interface UtxoTransactionState {
  /** 0 while in the mempool. */
  confirmations: number;
  blockHash: string | null;
}

const HASH = /^[0-9a-f]{64}$/;

/**
 * Calls in flight to one node at most: Bitcoin Core serves 4 at a time (-rpcthreads) and queues 16 more (-rpcworkqueue),
 * answering "Work queue depth exceeded" (HTTP 500, no JSON) beyond; twenty withdrawals signing at once stay within it.
 */
const MAX_IN_FLIGHT = 4;
/** A full work queue (this process's calls beside other processes') is asked again, a little later each time. */
const BUSY_RETRIES = 5;
const BUSY_BACKOFF_MS = 200;

export class UtxoRpc {
  private readonly endpoint: string;
  private readonly authorization: string | undefined;
  private nextId = 1;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(rpcUrl: string) {
    const url = new URL(rpcUrl);
    this.authorization =
      url.username || url.password
        ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
        : undefined;
    url.username = '';
    url.password = '';
    this.endpoint = url.toString();
  }

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    // A call that waits is handed the slot of the one that ends.
    if (this.inFlight < MAX_IN_FLIGHT) this.inFlight += 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await this.callOnce<T>(method, params);
        } catch (error) {
          if (!(error instanceof NodeBusy) || attempt > BUSY_RETRIES) throw error;
          await new Promise((resolve) => setTimeout(resolve, BUSY_BACKOFF_MS * attempt));
        }
      }
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight -= 1;
    }
  }

  private async callOnce<T>(method: string, params: unknown[]): Promise<T> {
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.authorization ? { authorization: this.authorization } : {}) },
      body: JSON.stringify({ jsonrpc: '1.0', id: this.nextId++, method, params }),
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    }).catch((error: unknown) => {
      throw new Error(`${method}: the node did not answer (${error instanceof Error ? error.message : String(error)})`);
    });
    const text = await response.text();
    if (text.length > MAX_ANSWER_BYTES) throw new Error(`${method}: the node's answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    let body: { result?: unknown; error?: { code?: unknown; message?: unknown } | null };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      if (/work queue depth exceeded/i.test(text)) throw new NodeBusy(`${method}: the node's work queue is full`);
      // Bitcoin Core answers 401 with an empty body to a wrong password.
      throw new Error(
        `${method}: the node answered HTTP ${response.status} without JSON${response.status === 401 ? ' (wrong RPC credentials?)' : ''}`,
      );
    }
    if (body.error) {
      const code = typeof body.error.code === 'number' ? body.error.code : 0;
      throw new UtxoRpcError(method, code, typeof body.error.message === 'string' ? body.error.message.slice(0, 300) : 'error');
    }
    if (!response.ok) throw new Error(`${method}: the node answered HTTP ${response.status}`);
    return body.result as T;
  }

  async genesisHash(): Promise<string> {
    return this.hash(await this.call('getblockhash', [0]), 'getblockhash');
  }

  async blockCount(): Promise<number> {
    return this.height(await this.call('getblockcount'), 'getblockcount');
  }

  async blockHash(height: number): Promise<string> {
    return this.hash(await this.call('getblockhash', [height]), 'getblockhash');
  }

  /** The block with each transaction's hex: Bitcoin Core lists them under `tx`, btcd under `rawtx`. */
  async block(hash: string): Promise<UtxoBlock> {
    const raw = await this.call<Record<string, unknown>>('getblock', [hash, 2]);
    const list = (raw?.tx ?? raw?.rawtx) as Array<{ hex?: unknown }> | undefined;
    if (!raw || !Array.isArray(list) || list.some((tx) => typeof tx?.hex !== 'string' || !/^([0-9a-f]{2})+$/.test(tx.hex))) {
      throw new Error(`getblock ${hash}: the answer has no transactions in hex`);
    }
    return {
      hash: this.hash(raw.hash, 'getblock'),
      height: this.height(raw.height, 'getblock'),
      previousHash: raw.previousblockhash === undefined ? null : this.hash(raw.previousblockhash, 'getblock'),
      transactions: list.map((tx) => tx.hex as string),
    };
  }

  /** Where a transaction stands (needs the node's transaction index), or null when the node knows none by that id. */
  async transaction(txid: string): Promise<UtxoTransactionState | null> {
    let raw: { confirmations?: unknown; blockhash?: unknown };
    try {
      raw = await this.call('getrawtransaction', [txid, 1]);
    } catch (error) {
      if (error instanceof UtxoRpcError && error.code === NO_SUCH_TRANSACTION) return null;
      throw error;
    }
    const confirmations = raw.confirmations === undefined ? 0 : this.height(raw.confirmations, 'getrawtransaction');
    return { confirmations, blockHash: raw.blockhash === undefined ? null : this.hash(raw.blockhash, 'getrawtransaction') };
  }

  /** Each output's value in the node's confirmed unspent set, in whole coins, or null; a few at a time, not one burst. */
  async unspentOutputs(outputs: ReadonlyArray<{ txid: string; vout: number }>): Promise<Array<string | null>> {
    const values: Array<string | null> = [];
    for (let start = 0; start < outputs.length; start += 8) {
      const batch = outputs.slice(start, start + 8);
      values.push(...(await Promise.all(batch.map((output) => this.unspentOutput(output.txid, output.vout)))));
    }
    return values;
  }

  /** An output of the node's confirmed set of unspent outputs (the mempool not counted): its value in whole coins, or null. */
  async unspentOutput(txid: string, vout: number): Promise<string | null> {
    const raw = await this.call<{ value?: unknown } | null>('gettxout', [txid, vout, false]);
    if (raw === null) return null;
    // A JSON number of at most 8 decimals: its shortest text is its exact decimal.
    if (typeof raw.value !== 'number' || !Number.isFinite(raw.value) || raw.value < 0)
      throw new Error(`gettxout ${txid}:${vout}: the answer has no readable value`);
    return String(raw.value);
  }

  /** The node's answer is the txid; a refusal is a UtxoRpcError (see sendRefusal). */
  async send(rawTransaction: string): Promise<string> {
    return this.hash(await this.call('sendrawtransaction', [rawTransaction]), 'sendrawtransaction');
  }

  /** The node's fee estimate for `targetBlocks`, in base units per virtual byte; null when it has none (regtest, a young node). */
  async feeRate(targetBlocks: number): Promise<number | null> {
    let perKilobyte: unknown;
    try {
      const smart = await this.call<{ feerate?: unknown }>('estimatesmartfee', [targetBlocks]);
      perKilobyte = smart?.feerate;
    } catch (error) {
      if (!isMethodNotFound(error)) throw error;
      // btcd has only the older call; it answers 0 or -1 while it has no data.
      perKilobyte = await this.call('estimatefee', [targetBlocks]);
    }
    if (typeof perKilobyte !== 'number' || !Number.isFinite(perKilobyte) || perKilobyte <= 0) return null;
    return (perKilobyte * 1e8) / 1000;
  }

  /** Development chains only: mines `blocks` paying `address` (Bitcoin Core's generatetoaddress; btcd mines to its --miningaddr). */
  async mine(blocks: number, address: string): Promise<string[]> {
    try {
      return await this.call<string[]>('generatetoaddress', [blocks, address]);
    } catch (error) {
      if (!isMethodNotFound(error)) throw error;
      return this.call<string[]>('generate', [blocks]);
    }
  }

  private hash(value: unknown, method: string): string {
    if (typeof value !== 'string' || !HASH.test(value)) throw new Error(`${method}: the node's answer is not a 64-digit hash`);
    return value;
  }

  private height(value: unknown, method: string): number {
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
      throw new Error(`${method}: the node's answer is not a height`);
    return value;
  }
}

export function isMethodNotFound(error: unknown): boolean {
  return error instanceof UtxoRpcError && (error.code === METHOD_NOT_FOUND || /method not found/i.test(error.message));
}

/** The node refused the call for want of room in its work queue, not for anything in it. */
class NodeBusy extends Error {}
