import { randomUUID } from 'node:crypto';

/**
 * A partner's flood, from a process of its own (so its client work does not slow the API under test): CONCURRENCY loops,
 * for DURATION_MS, each sending in turn an exchange on a made-up lock and a withdrawal the partner has no funds for.
 * Prints the answers' statuses, counted, as one JSON line.
 */
const url = process.env.FLOOD_URL!;
const apiKey = process.env.FLOOD_API_KEY!;
const concurrency = Number(process.env.FLOOD_CONCURRENCY ?? 300);
const durationMs = Number(process.env.FLOOD_DURATION_MS ?? 20_000);

const bodies = [
  () => ({ path: '/v1/partner/exchange', body: { amount: 10, currencyFrom: 'eur', currencyTo: 'btc', lockId: randomUUID() } }),
  () => ({
    path: '/v1/partner/crypto-withdrawal',
    body: {
      currency: 'eth',
      amount: 0.5,
      walletAddress: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
      name: 'Jan Kowalski',
      walletType: 'CUSTODIAL',
      receiverType: 'NATURAL',
    },
  }),
];

async function main(): Promise<void> {
  const statuses: Record<string, number> = {};
  const endAt = Date.now() + durationMs;
  const loop = async (index: number) => {
    for (let turn = index; Date.now() < endAt; turn += 1) {
      const { path, body } = bodies[turn % bodies.length]!();
      let status: string;
      try {
        const response = await fetch(`${url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const answer = (await response.json()) as { errorCode?: string };
        status = `${response.status}${answer.errorCode ? ` ${answer.errorCode}` : ''}`;
      } catch (error) {
        status = `failed: ${(error as Error).message}`;
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, index) => loop(index)));
  process.stdout.write(`${JSON.stringify(statuses)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
