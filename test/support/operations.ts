import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from '@temporalio/client';
import { connectClosable } from '../../operations/temporal/closable-connection';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { upsertUser } from '../../db/services/partner-user.service';
import type { TestPartner } from './fixtures';
import type { TestApi } from './http';
import { eventually } from './eventually';
import { testStack } from './stack';
import { testDataConverter } from './temporal-access';

/** A partner's own withdrawal of 0.1 ETH to a new address (fee 0.0005): the tests' usual one. */
export function ethWithdrawalBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    currency: 'eth',
    amount: 0.1,
    walletAddress: newWalletAddress('eth'),
    name: 'Jan Kowalski',
    walletType: 'CUSTODIAL',
    receiverType: 'NATURAL',
    ...overrides,
  };
}

export async function balancesOf(api: TestApi, partner: TestPartner): Promise<Record<string, string>> {
  const response = await api.request('GET', '/v1/partner/balances', { apiKey: partner.apiKey });
  return Object.fromEntries(
    [...response.json.fiatBalances, ...response.json.cryptoBalances].map((balance: { name: string; amount: string }) => [
      balance.name,
      balance.amount,
    ]),
  );
}

export async function historyOf(api: TestApi, partner: TestPartner): Promise<Array<Record<string, unknown>>> {
  const now = new Date();
  const response = await api.request('GET', `/v1/partner/transaction-history/${now.getUTCMonth() + 1}/${now.getUTCFullYear()}`, {
    apiKey: partner.apiKey,
  });
  return response.json;
}

export async function registerUser(orm: MikroORM, partner: TestPartner, externalUserId: string): Promise<string> {
  const user = await orm.em.fork().transactional((em) =>
    upsertUser(
      em,
      partner.partnerId,
      {
        externalUserId,
        email: `${externalUserId}@example.com`,
        firstName: 'Anna',
        lastName: 'Nowak',
        address: 'Prosta 1',
        city: 'Warszawa',
        country: 'PL',
        documentType: 'PASSPORT',
        documentNumber: 'EA1234567',
        pesel: '90010112345',
        birthCountry: 'PL',
        birthDate: '1990-01-01',
      },
      new Date(),
    ),
  );
  return user.id;
}

export async function temporalClient(): Promise<{ client: Client; close: () => Promise<void> }> {
  const { connection, close } = await connectClosable({ address: testStack().temporalAddress });
  return {
    client: new Client({ connection, namespace: testStack().namespace, dataConverter: testDataConverter() }),
    close,
  };
}

/**
 * Waits until a worker polls the task queue's workflow tasks: a worker process started by a test
 * takes seconds to bundle and connect (more on a loaded machine), and a POST sent before it polls
 * may wait out the API's response time.
 */
export async function untilWorkerPolls(taskQueue: string, timeoutMs = 120_000): Promise<void> {
  const { client, close } = await temporalClient();
  try {
    await eventually(
      async () => {
        const described = await client.workflowService.describeTaskQueue({
          namespace: testStack().namespace,
          taskQueue: { name: taskQueue },
          taskQueueType: 1 /* TASK_QUEUE_TYPE_WORKFLOW */,
        });
        if ((described.pollers ?? []).length === 0) throw new Error(`no worker polls ${taskQueue} yet`);
      },
      { timeoutMs, intervalMs: 250 },
    );
  } finally {
    await close();
  }
}
