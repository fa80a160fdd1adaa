import { randomBytes, randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { startCodecServer } from '../../api/codec/codec-server';
import { completeTravelRuleUpdate, cryptoWithdrawalContract, sepaTransferContract } from '../../contracts';
import { createLogger } from '../../core/logger';
import { AesGcmPayloadCodec } from '../../core/payload-codec';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import { naturalSepaTransferBody } from '../support/sepa-payment.fixture';
import { testStack } from '../support/stack';
import { testTemporalAccess } from '../support/temporal-access';
import { auditedCompletion } from '../support/travel-rule-completion';
import { useTestApi } from '../support/use-test-api';

/** The Web UI's origin, as its browser sends it: the codec endpoint decodes for its pages without a token. */
const UI_ORIGIN = 'http://127.0.0.1:8233';

const ctx = useTestApi();

/** Words only this test sends: if any shows up in Temporal's raw history, it was stored in clear. */
const marker = randomUUID().slice(0, 8);
const secrets = {
  beneficiaryName: `Zbigniew Brzęczyszczykiewicz${marker}`,
  memo: `memo-${marker}`,
  creditorFirst: `Hieronim${marker}`,
  creditorLast: `Kwiatkowski${marker}`,
  title: `rent-${marker}`,
  documentNumber: `DOC${marker.toUpperCase()}`,
  ivmsLastName: `Wiśniewska${marker}`,
};

/** A workflow's whole history as the server stores it, fetched without any codec. */
async function rawHistory(workflowId: string): Promise<{ text: string; payloads: temporal.api.common.v1.IPayload[] }> {
  const connection = await Connection.connect({ address: testStack().temporalAddress });
  try {
    const { history } = await connection.workflowService.getWorkflowExecutionHistory({
      namespace: testStack().namespace,
      execution: { workflowId },
    });
    const text = JSON.stringify(
      temporal.api.history.v1.History.toObject(temporal.api.history.v1.History.create(history ?? {}), { bytes: String }),
    );
    const payloads: temporal.api.common.v1.IPayload[] = [];
    collectPayloads(history, payloads);
    // Base64 hides text from a plain search: decode every payload's data too.
    const decoded = payloads.map((payload) => Buffer.from(payload.data ?? new Uint8Array()).toString('utf8')).join('\n');
    return { text: `${text}\n${decoded}`, payloads };
  } finally {
    await connection.close();
  }
}

function collectPayloads(node: unknown, into: temporal.api.common.v1.IPayload[]): void {
  if (typeof node !== 'object' || node === null) return;
  if (node instanceof Uint8Array) return;
  const candidate = node as { data?: unknown; metadata?: unknown };
  if (candidate.data instanceof Uint8Array && typeof candidate.metadata === 'object') {
    into.push(candidate as temporal.api.common.v1.IPayload);
    return;
  }
  for (const value of Object.values(node)) collectPayloads(value, into);
}

it('stores what partners send only encrypted in Temporal, and the codec endpoint shows it to operators', async () => {
  const partner = await createTestPartner(ctx.orm, { deposits: { eth: '1', eur: '500' } });

  // A withdrawal that waits for travel-rule data, completed with IVMS101 data and a document number.
  const withdrawal = await ctx.api.request('POST', '/v1/partner/crypto-withdrawal', {
    apiKey: partner.apiKey,
    body: {
      currency: 'eth',
      amount: 0.5,
      walletAddress: newWalletAddress('eth'),
      name: secrets.beneficiaryName,
      memo: secrets.memo,
      walletType: 'NON_CUSTODIAL',
      receiverType: 'NATURAL',
    },
  });
  expect(withdrawal.status).toBe(200);
  const withdrawalWorkflowId = cryptoWithdrawalContract.workflowId(withdrawal.json.withdrawalId);
  const handle = ctx.temporal.workflow.getHandle(withdrawalWorkflowId);
  await eventually(async () => {
    const details = await ctx.api.request('GET', `/v1/crypto-withdrawal/details/${withdrawal.json.withdrawalId}`, {
      apiKey: partner.apiKey,
    });
    expect(details.json.status).toBe('IN_PROGRESS_TR_DATA');
  });
  const completion = await auditedCompletion(
    ctx.orm,
    { withdrawalId: withdrawal.json.withdrawalId, partnerId: partner.partnerId },
    {
      completedBy: 'compliance@example.com',
      beneficiary: {
        beneficiaryPersons: [
          {
            naturalPerson: {
              name: {
                nameIdentifier: [{ primaryIdentifier: secrets.ivmsLastName, secondaryIdentifier: 'Ewa', nameIdentifierType: 'LEGL' }],
              },
              nationalIdentification: {
                nationalIdentifier: secrets.documentNumber,
                nationalIdentifierType: 'CCPT',
                countryOfIssue: 'PL',
              },
            },
          },
        ],
      },
    },
  );
  await handle.executeUpdate(completeTravelRuleUpdate, { args: [completion] });

  // A SEPA transfer: the creditor's name, IBAN and the transfer's title.
  const iban = 'DE89370400440532013000';
  const sepa = await ctx.api.request('POST', '/v1/partner/sepa-transfer', {
    apiKey: partner.apiKey,
    body: naturalSepaTransferBody({
      amount: '12.50',
      receiverFirstName: secrets.creditorFirst,
      receiverLastName: secrets.creditorLast,
      destinationIban: iban,
      transferTitle: secrets.title,
    }),
  });
  expect(sepa.status).toBe(201);
  const sepaWorkflowId = sepaTransferContract.workflowId(sepa.json.transferId);

  // Both finished, their inputs, updates and results are in the history.
  for (const workflowId of [withdrawalWorkflowId, sepaWorkflowId]) await ctx.temporal.workflow.getHandle(workflowId).result();

  const everything = [...Object.values(secrets), iban];
  // As the real endpoint: what is not ours (plain headers) shows as refused instead of failing the batch.
  const codec = new AesGcmPayloadCodec(testTemporalAccess().payloadKeys!, { refused: 'mark' });
  const token = randomBytes(24).toString('base64url');
  const server = await startCodecServer({
    codec,
    token,
    allowedOrigins: [],
    trustedOrigins: [UI_ORIGIN],
    allowedHosts: [],
    port: 0,
    host: '127.0.0.1',
    log: createLogger('codec', 'error'),
  });
  try {
    const found: string[] = [];
    for (const workflowId of [withdrawalWorkflowId, sepaWorkflowId]) {
      const { text, payloads } = await rawHistory(workflowId);
      for (const secret of everything) expect(text).not.toContain(secret);
      expect(payloads.length).toBeGreaterThan(0);

      // Through the codec endpoint, as the Web UI asks it.
      const response = await fetch(`${server.endpointUrl}/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-namespace': testStack().namespace, origin: UI_ORIGIN },
        body: JSON.stringify({
          payloads: payloads.map((payload) => ({
            metadata: Object.fromEntries(
              Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
            ),
            data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
          })),
        }),
      });
      expect(response.status).toBe(200);
      const decoded = (await response.json()) as { payloads: Array<{ data: string }> };
      const clear = decoded.payloads.map((payload) => Buffer.from(payload.data, 'base64').toString('utf8')).join('\n');
      found.push(...everything.filter((secret) => clear.includes(secret)));
    }
    // Only the operator's travel-rule completion (the IVMS101 data) goes through Temporal: the
    // workflows carry ids, and the partners' requests (names, memo, creditor, title, IBAN) stay in Postgres.
    expect(new Set(found)).toEqual(new Set([secrets.ivmsLastName, secrets.documentNumber]));
  } finally {
    await server.stop();
  }
});
