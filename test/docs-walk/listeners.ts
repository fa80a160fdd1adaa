import fs from 'node:fs';

/** A listening TCP socket and the process that holds it. */
export interface Listener {
  pid: number;
  address: string;
  port: number;
}

/**
 * What `ss -ltnp` shows, read from /proc so that a machine without iproute2 can run the walk:
 * the TCP sockets in LISTEN state held by the given processes.
 */
export function listenersOf(pids: readonly number[]): Listener[] {
  const sockets = listeningSockets();
  const listeners: Listener[] = [];
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      const socket = inode === undefined ? undefined : sockets.get(inode);
      if (socket !== undefined) listeners.push({ pid, ...socket });
    }
  }
  return listeners;
}

/** The ports some process on this machine listens on, of those given. */
export function stillListening(ports: readonly number[]): number[] {
  const listening = new Set([...listeningSockets().values()].map(({ port }) => port));
  return ports.filter((port) => listening.has(port));
}

/** 127.0.0.0/8, ::1, or 127.0.0.0/8 mapped into IPv6. */
export function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}

const LISTEN = '0A';

/** inode → address and port of every listening TCP socket, IPv4 and IPv6. */
function listeningSockets(): Map<string, { address: string; port: number }> {
  const sockets = new Map<string, { address: string; port: number }>();
  for (const [file, decode] of [
    ['/proc/net/tcp', ipv4],
    ['/proc/net/tcp6', ipv6],
  ] as const) {
    let table: string;
    try {
      table = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of table.trim().split('\n').slice(1)) {
      // sl, local_address, rem_address, st, tx_queue:rx_queue, tr:tm->when, retrnsmt, uid, timeout, inode
      const [, local = '', , state, , , , , , inode = ''] = line.trim().split(/\s+/);
      if (state !== LISTEN) continue;
      const [hexAddress = '', hexPort = ''] = local.split(':');
      sockets.set(inode, { address: decode(hexAddress), port: parseInt(hexPort, 16) });
    }
  }
  return sockets;
}

/** /proc/net/tcp writes an IPv4 address as one 32-bit word in host (little-endian) order. */
function ipv4(hex: string): string {
  return bytesOf(hex).reverse().join('.');
}

/** /proc/net/tcp6 writes an IPv6 address as four 32-bit words, each in host (little-endian) order. */
function ipv6(hex: string): string {
  const bytes: number[] = [];
  for (let word = 0; word < 4; word += 1) bytes.push(...bytesOf(hex.slice(word * 8, word * 8 + 8)).reverse());
  if (bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return `::ffff:${bytes.slice(12).join('.')}`;
  }
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  // The two forms the walk needs to tell apart: the unspecified address and loopback; others stay long.
  const full = groups.join(':');
  if (full === '0:0:0:0:0:0:0:0') return '::';
  if (full === '0:0:0:0:0:0:0:1') return '::1';
  return full;
}

function bytesOf(hex: string): number[] {
  return (hex.match(/../g) ?? []).map((pair) => parseInt(pair, 16));
}
