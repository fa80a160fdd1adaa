import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from '../../core/payload-codec';
import type { WorkflowHandle } from '@temporalio/client';
import { cryptoWithdrawalContract, exchangeContract, sepaTransferContract } from '../../contracts';
import { OPERATION_STAGE, OPERATION_STATUS, OPERATION_SUMMARY } from '../../core/search-attributes';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import { naturalSepaTransferBody } from '../support/sepa-payment.fixture';
import type { TestPartner } from '../support/fixtures';
import { registerUser } from '../support/operations';
import { testTemporalAccess } from '../support/temporal-access';
import { useTestApi } from '../support/use-test-api';

/**
 * What an operator sees of a workflow in the Temporal UI without opening its input: the summary
 * (also as the OperationSummary column), the details, the current details and the activities'
 * summaries. All of it is stored in clear, so none of it may carry personal data.
 */
const ctx = useTestApi();

/** The SDK's built-in query behind the UI's "Current Details". */
const METADATA_QUERY = '__temporal_workflow_metadata';

/** A partner name with markdown in it: the summary must show it as text. */
async function namedPartner(name: string, deposits: Partial<Record<'eth' | 'eur' | 'ltc', string>>): Promise<TestPartner> {
  const partner = await createTestPartner(ctx.orm, { deposits });
  await ctx.orm.em.fork().getConnection().execute(`update partner set name = ? where id = ?`, [name, partner.partnerId]);
  return partner;
}

interface SeenByOperators {
  staticSummary: string | undefined;
  staticDetails: string | undefined;
  listSummary: string | undefined;
  stage: string | undefined;
  status: string | undefined;
  currentDetails: string | undefined;
  activitySummaries: string[];
}

async function seenByOperators(handle: WorkflowHandle): Promise<SeenByOperators> {
  const description = await handle.describe();
  const metadata = await handle.query<{ currentDetails?: string }>(METADATA_QUERY);
  const history = await handle.fetchHistory();
  // Summaries are payloads, encrypted like the rest: the Web UI shows them through the codec endpoint.
  const encrypted = (history.events ?? []).flatMap((event) => {
    const summary = event.activityTaskScheduledEventAttributes ? event.userMetadata?.summary : undefined;
    return summary ? [summary] : [];
  });
  // As the real endpoint: what is not ours (plain headers) shows as refused instead of failing the batch.
  const codec = new AesGcmPayloadCodec(testTemporalAccess().payloadKeys!, { refused: 'mark' });
  const activitySummaries = (await codec.decode(encrypted)).map((payload) => defaultPayloadConverter.fromPayload<string>(payload));
  return {
    staticSummary: await description.staticSummary(),
    staticDetails: await description.staticDetails(),
    listSummary: description.typedSearchAttributes.get(OPERATION_SUMMARY),
    stage: description.typedSearchAttributes.get(OPERATION_STAGE),
    status: description.typedSearchAttributes.get(OPERATION_STATUS),
    currentDetails: metadata.currentDetails,
    activitySummaries,
  };
}

/** Closed, and the visibility store has caught up with the last search-attribute update. */
async function closedWithStage(handle: WorkflowHandle, stage: string): Promise<SeenByOperators> {
  await handle.result().catch(() => undefined);
  return eventually(async () => {
    const seen = await seenByOperators(handle);
    expect(seen.stage).toBe(stage);
    return seen;
  });
}

function expectNoneOf(texts: Array<string | undefined>, personalData: string[]): void {
  for (const text of texts) for (const value of personalData) expect(text ?? '').not.toContain(value);
}

describe('what the Temporal UI shows of a workflow', () => {
  it('a crypto withdrawal: amount, currency, network and partner name, its stages and steps, and no personal data', async () => {
    const partner = await namedPartner('Acme_Wallet [EU]', { eth: '2' });
    const walletAddress = newWalletAddress('eth');
    const response = await ctx.api.request('POST', '/v1/partner/crypto-withdrawal', {
      apiKey: partner.apiKey,
      body: {
        currency: 'eth',
        amount: 0.5,
        walletAddress,
        name: 'Jan Kowalski',
        memo: 'rent for flat 12',
        walletType: 'CUSTODIAL',
        receiverType: 'NATURAL',
      },
    });
    expect(response.status).toBe(200);
    const { withdrawalId } = response.json;
    const handle = ctx.temporal.workflow.getHandle(cryptoWithdrawalContract.workflowId(withdrawalId));

    const seen = await closedWithStage(handle, 'SETTLED');
    expect(seen.listSummary).toBe('Crypto withdrawal 0.5 ETH on ethereum for Acme_Wallet [EU]');
    // Markdown: the partner's own brackets and underscore are escaped, not rendered.
    expect(seen.staticSummary).toBe('Crypto withdrawal 0.5 ETH on ethereum for Acme\\_Wallet \\[EU\\]');
    expect(seen.staticDetails).toContain(withdrawalId);
    expect(seen.staticDetails).toContain(partner.partnerId);
    expect(seen.staticDetails).toContain('**Network fee:** 0.0005 ETH');
    expect(seen.staticDetails).toContain('**Held:** 0.5005 ETH (amount + fee)');
    expect(seen.status).toBe('SUCCESSFUL');
    expect(seen.currentDetails).toMatch(/^\*\*Stage:\*\* SETTLED · status SUCCESSFUL · updated \d{4}-\d\d-\d\dT[\d:.]+Z$/);
    expect(seen.activitySummaries).toEqual(
      expect.arrayContaining([
        'travel-rule check: deny list, EUR threshold',
        'broadcast 0.5 ETH on ethereum',
        'ask ethereum for the confirmation',
      ]),
    );
    expectNoneOf(
      [seen.staticSummary, seen.staticDetails, seen.listSummary, seen.currentDetails, ...seen.activitySummaries],
      ['Jan', 'Kowalski', walletAddress, walletAddress.toLowerCase(), 'rent for flat'],
    );
  });

  it('a withdrawal for a user names the user by id only; one waiting for travel-rule data says until when', async () => {
    const partner = await namedPartner('Beta Pay', { ltc: '10', eth: '2' });
    const userId = await registerUser(ctx.orm, partner, 'user-meta-1');
    const forUser = await ctx.api.request('POST', '/v1/crypto-withdrawal', {
      apiKey: partner.apiKey,
      body: {
        currency: 'ltc',
        amount: 1,
        walletAddress: newWalletAddress('ltc'),
        name: 'Anna Nowak',
        walletType: 'CUSTODIAL',
        receiverType: 'NATURAL',
        sourceExternalUserId: 'user-meta-1',
      },
    });
    expect(forUser.status).toBe(200);
    const userHandle = ctx.temporal.workflow.getHandle(cryptoWithdrawalContract.workflowId(forUser.json.withdrawalId));
    const seenForUser = await closedWithStage(userHandle, 'SETTLED');
    expect(seenForUser.listSummary).toBe(`Crypto withdrawal 1 LTC on litecoin for Beta Pay (user ${userId})`);
    expect(seenForUser.staticDetails).toContain(`**User:** \`${userId}\``);
    expectNoneOf([seenForUser.staticSummary, seenForUser.staticDetails, seenForUser.listSummary], ['Anna', 'Nowak', 'user-meta-1']);

    // 1 ETH is 3000 EUR: above the threshold to a non-custodial wallet, it waits for the data (4 s in tests).
    const waiting = await ctx.api.request('POST', '/v1/partner/crypto-withdrawal', {
      apiKey: partner.apiKey,
      body: {
        currency: 'eth',
        amount: 1,
        walletAddress: newWalletAddress('eth'),
        name: 'Ada Lovelace',
        walletType: 'NON_CUSTODIAL',
        receiverType: 'NATURAL',
      },
    });
    const waitingHandle = ctx.temporal.workflow.getHandle(cryptoWithdrawalContract.workflowId(waiting.json.withdrawalId));
    const details = await eventually(async () => {
      const { currentDetails } = await waitingHandle.query<{ currentDetails?: string }>(METADATA_QUERY);
      expect(currentDetails).toContain('**Stage:** AWAITING_TRAVEL_RULE_DATA · status IN_PROGRESS_TR_DATA');
      return currentDetails!;
    });
    expect(details).toMatch(/Waits for travel-rule data \(the completeTravelRule update\) until \d{4}-\d\d-\d\dT[\d:.]+Z\./);
    // The deadline passes: released, and the stage says so everywhere.
    const failed = await closedWithStage(waitingHandle, 'FAILED');
    expect(failed.status).toBe('UNSUCCESSFUL');
    expect(failed.currentDetails).toMatch(/^\*\*Stage:\*\* FAILED · status UNSUCCESSFUL/);
    expect(failed.activitySummaries).toContain('release 1 ETH + fee');
    expectNoneOf([failed.currentDetails, ...failed.activitySummaries], ['Ada', 'Lovelace']);
  });

  it('a SEPA transfer: amount and partner, never the IBAN, the receiver or the title', async () => {
    const partner = await namedPartner('Gamma Payments', { eur: '500' });
    const response = await ctx.api.request('POST', '/v1/partner/sepa-transfer', {
      apiKey: partner.apiKey,
      body: naturalSepaTransferBody(),
    });
    expect(response.status).toBe(201);
    const handle = ctx.temporal.workflow.getHandle(sepaTransferContract.workflowId(response.json.transferId));
    const seen = await closedWithStage(handle, 'SETTLED');
    expect(seen.listSummary).toBe('SEPA transfer 250.5 EUR for Gamma Payments');
    expect(seen.staticDetails).toContain('**Receiver:** NATURAL');
    expect(seen.activitySummaries).toEqual(
      expect.arrayContaining(['submit the pain.001 (250.5 EUR) to the bank', 'ask the bank for its answer']),
    );
    expectNoneOf(
      [seen.staticSummary, seen.staticDetails, seen.listSummary, seen.currentDetails, ...seen.activitySummaries],
      ['Marie', 'Curie', 'DE89', '370400440532013000', 'Invoice'],
    );
  });

  it('an exchange refused for insufficient funds: the summary, and the refusal as the stage and in the current details', async () => {
    const partner = await namedPartner('Delta Exchange', { eur: '10' });
    const lock = await ctx.api.request('GET', '/v1/partner/get-lock', { apiKey: partner.apiKey });
    const response = await ctx.api.request('POST', '/v1/partner/exchange', {
      apiKey: partner.apiKey,
      body: { amount: 100, currencyFrom: 'eur', currencyTo: 'btc', lockId: lock.json.id },
    });
    expect(response.status).toBe(400);
    expect(response.json.errorCode).toBe('P433');
    // A refused exchange answers no id: find its workflow by the partner's search attribute.
    const listed = await eventually(async () => {
      const page = ctx.temporal.workflow.list({ query: `PartnerId = "${partner.partnerId}" AND OperationType = "exchange"` });
      const found: string[] = [];
      for await (const execution of page) found.push(execution.workflowId);
      expect(found).toHaveLength(1);
      return found[0]!;
    });
    expect(listed).toMatch(new RegExp(`^${exchangeContract.workflowId('')}`));
    const seen = await closedWithStage(ctx.temporal.workflow.getHandle(listed), 'REFUSED_INSUFFICIENT_FUNDS');
    expect(seen.listSummary).toBe('Exchange 100 EUR → BTC for Delta Exchange');
    expect(seen.staticDetails).toContain(lock.json.id);
    expect(seen.status).toBe('UNSUCCESSFUL');
    expect(seen.currentDetails).toContain('**Refused:** insufficient-funds');
  });
});
