import type { MikroORM } from '@mikro-orm/postgresql';
import { Client, Connection } from '@temporalio/client';
import { upsertUser } from '../../db/services/partner-user.service';
import type { TestPartner } from './fixtures';
import type { TestApi } from './http';
import { testStack } from './stack';
import { testDataConverter } from './temporal-access';

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

export async function temporalClient(): Promise<{ client: Client; close(): Promise<void> }> {
  const connection = await Connection.connect({ address: testStack().temporalAddress });
  return {
    client: new Client({ connection, namespace: testStack().namespace, dataConverter: testDataConverter() }),
    close: () => connection.close(),
  };
}
