import type Router from '@koa/router';
import type Koa from 'koa';
import type { z } from 'zod';
import { createApp } from '../../api/app';
import { systemClock } from '../../api/dependencies';
import { parseExactJson } from '../../api/http/exact-json';
import { documentedRoutes } from '../../api/openapi/paths';
import { balancesRoute } from '../../api/routes/balances.route';
import { exchangeRoute } from '../../api/routes/exchange.route';
import { networkFeeRoute } from '../../api/routes/network-fee.route';
import { rateLockRoute } from '../../api/routes/rate-lock.route';
import { sepaTransferRoute } from '../../api/routes/sepa-transfer.route';
import { transactionHistoryRoute } from '../../api/routes/transaction-history.route';
import { userCryptoWithdrawalRoute } from '../../api/routes/user-crypto-withdrawal.route';
import { withdrawalDetailsRoute } from '../../api/routes/withdrawal-details.route';
import { exchangeBodySchema } from '../../api/schemas/exchange.schema';
import { sepaTransferBodySchema } from '../../api/schemas/sepa-transfer.schema';
import { createLogger } from '../../core/logger';
import { DEFAULT_EUR_RATES } from '../../core/rates';
import { newWalletAddress } from '../../db/services/account-identifiers';
import { configuredRateSource } from '../../operations/rate-source';
import { eventually } from '../support/eventually';
import { createTestPartner } from '../support/fixtures';
import { registerUser } from '../support/operations';
import { naturalSepaTransferBody } from '../support/sepa-payment.fixture';
import { testStack } from '../support/stack';
import { useTestApi } from '../support/use-test-api';
import { endPool, openPool } from '../../db/pool';

const ctx = useTestApi();

/** Routes that are not part of the partner API the document describes: its own, and operators'. */
const NOT_DOCUMENTED = [/^\/docs(\/|$)/, /^\/v1\/openapi\.json$/, /^\/health(\/|$)/];

/** "METHOD /path" for every route an app's routers serve, in OpenAPI's path form (HEAD comes with every GET). */
function servedRoutes(app: Koa): string[] {
  const routers = app.middleware.flatMap((middleware) => (middleware as { router?: Router }).router ?? []);
  expect(routers.length).toBeGreaterThan(0);
  return routers.flatMap((router) =>
    router.stack.flatMap((layer) =>
      layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${String(layer.path).replace(/:(\w+)/g, '{$1}')}`),
    ),
  );
}

/** The app the API serves, built like startApi builds it (nothing is queried or started by building it). */
function appForIntrospection(): Koa {
  const pool = openPool({ connectionString: testStack().databaseUrl, max: 1 });
  ctx.defer(() => endPool(pool));
  return createApp({
    pool,
    readPool: pool,
    temporal: { client: ctx.temporal, taskQueue: testStack().taskQueue, responseTimeoutMs: 1_000, pool },
    rateSource: configuredRateSource(DEFAULT_EUR_RATES),
    clock: systemClock,
    log: createLogger('openapi-test', 'error'),
    maxBodyBytes: 1024,
    rateLimit: { perSecond: 0, burst: 0 },
    withdrawalAddressCoolingOffMinutes: 0,
  });
}

interface FetchedDocument {
  openapi: string;
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { examples: Record<string, { value: unknown }> }> } }>>;
}

async function fetchDocument(): Promise<FetchedDocument> {
  const response = await ctx.api.request('GET', '/v1/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  // Parsed with exact numbers, as a partner should: examples keep their digits.
  return parseExactJson(response.text) as FetchedDocument;
}

/** A response body parsed as a careful partner parses it (exact numbers), checked against its documented schema. */
function expectBody(schema: z.ZodType | undefined, text: string): void {
  expect(schema).toBeDefined();
  expect(schema?.safeParse(parseExactJson(text)).error).toBeUndefined();
}

describe('GET /v1/openapi.json', () => {
  it('is served without an API key, and documents exactly the routes the router serves', async () => {
    const document = await fetchDocument();
    expect(document.openapi).toBe('3.1.0');
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const served = servedRoutes(appForIntrospection()).filter(
      (route) => !NOT_DOCUMENTED.some((pattern) => pattern.test(route.split(' ')[1]!)),
    );
    expect(new Set(served).size).toBe(served.length);
    expect([...documented].sort()).toEqual([...served].sort());
    expect(documented).toHaveLength(12);
  });

  it('has request examples that the routes accept', async () => {
    const { paths } = await fetchDocument();
    const examples = (path: string) => Object.values(paths[path]?.post?.requestBody?.content['application/json']?.examples ?? {});
    const exchanges = examples('/v1/partner/exchange');
    const transfers = examples('/v1/partner/sepa-transfer');
    expect(exchanges.length).toBeGreaterThan(0);
    expect(transfers.length).toBeGreaterThan(0);
    for (const example of exchanges) expect(exchangeBodySchema.safeParse(example.value).error).toBeUndefined();
    for (const example of transfers) expect(sepaTransferBodySchema.safeParse(example.value).error).toBeUndefined();
    // The smallest ETH amount arrives with all its digits.
    expect(
      exchangeBodySchema.parse(exchanges.find((example) => exchangeBodySchema.parse(example.value).currencyFrom === 'eth')?.value),
    ).toMatchObject({
      amount: '0.000000000000000001',
    });
  });
});

describe('the documented response bodies', () => {
  it('match what the API answers', async () => {
    const partner = await createTestPartner(ctx.orm, { deposits: { eur: '1000', eth: '2' } });
    const get = (path: string) => ctx.api.request('GET', path, { apiKey: partner.apiKey });
    const post = (path: string, body: object) => ctx.api.request('POST', path, { apiKey: partner.apiKey, body });

    expectBody(balancesRoute.response.body, (await get('/v1/partner/balances')).text);
    expectBody(networkFeeRoute.response.body, (await get('/v1/crypto-withdrawal/get-network-fee?currency=usdc&network=polygon')).text);
    const lock = await get('/v1/partner/get-lock');
    expectBody(rateLockRoute.response.body, lock.text);
    const exchanged = await post('/v1/partner/exchange', { amount: '10', currencyFrom: 'eur', currencyTo: 'eth', lockId: lock.json.id });
    expect(exchanged.status).toBe(201);
    expectBody(exchangeRoute.response.body, exchanged.text);
    const transfer = await post('/v1/partner/sepa-transfer', naturalSepaTransferBody());
    expect(transfer.status).toBe(201);
    expectBody(sepaTransferRoute.response.body, transfer.text);

    await registerUser(ctx.orm, partner, 'openapi-user');
    const withdrawal = await post('/v1/crypto-withdrawal', {
      currency: 'eth',
      amount: 0.5,
      walletAddress: newWalletAddress('eth'),
      name: 'Anna Nowak',
      walletType: 'CUSTODIAL',
      receiverType: 'NATURAL',
      sourceExternalUserId: 'openapi-user',
    });
    expect(withdrawal.status).toBe(200);
    expectBody(userCryptoWithdrawalRoute.response.body, withdrawal.text);
    const details = await get(`/v1/crypto-withdrawal/details/${withdrawal.json.withdrawalId}`);
    expect(details.json.user).toMatchObject({ externalUserId: 'openapi-user' });
    expectBody(withdrawalDetailsRoute.response.body, details.text);

    const now = new Date();
    const history = await eventually(async () => {
      const response = await get(`/v1/partner/transaction-history/${now.getUTCMonth() + 1}/${now.getUTCFullYear()}`);
      // Deposits, the exchange (with amountFrom), the transfer and the withdrawal.
      expect(response.json.map((entry: { type: string }) => entry.type).sort()).toEqual([
        'cryptoDeposit',
        'cryptoWithdrawal',
        'exchange',
        'sepaDeposit',
        'sepaTransfer',
      ]);
      return response;
    });
    expectBody(transactionHistoryRoute.response.body, history.text);
  });

  it('include the error bodies, as documented for their route', async () => {
    const partner = await createTestPartner(ctx.orm);
    const route = documentedRoutes(new Date().getUTCFullYear()).find(
      (each) => each.path === '/v1/crypto-withdrawal/details/{withdrawalId}',
    );
    const notFound = (route?.operation.responses['404'] as unknown as { content: Record<string, { schema: z.ZodType }> }).content[
      'application/json'
    ];
    const response = await ctx.api.request('GET', '/v1/crypto-withdrawal/details/00000000-0000-4000-8000-000000000000', {
      apiKey: partner.apiKey,
    });
    expect(response.status).toBe(404);
    expectBody(notFound!.schema, response.text);
    // A body of another route's errors does not pass: the schema holds the codes of this route only.
    expect(notFound!.schema.safeParse({ errorCode: 'P433', errorName: 'insufficient-funds' }).success).toBe(false);
  });
});

describe('GET /docs', () => {
  it('serves the Swagger UI page, without an API key, under a tight Content-Security-Policy', async () => {
    const response = await ctx.api.request('GET', '/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    // Everything it loads comes from this server.
    const sources = [...response.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(sources.length).toBeGreaterThanOrEqual(3);
    for (const source of sources) expect(source).toMatch(/^\/docs\/assets\//);
    for (const source of sources) expect((await ctx.api.request('GET', source)).status).toBe(200);
  });

  it.each([
    ['/docs/assets/swagger-ui-bundle.js', 'text/javascript; charset=utf-8', 'SwaggerUIBundle'],
    ['/docs/assets/swagger-ui.css', 'text/css; charset=utf-8', '.swagger-ui'],
    ['/docs/assets/docs-init.js', 'text/javascript; charset=utf-8', "url: '/v1/openapi.json'"],
  ])('serves %s as %s, from the installed package', async (path, contentType, content) => {
    const response = await ctx.api.request('GET', path);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect(response.text).toContain(content);
  });

  it.each(['/docs/assets/package.json', '/docs/assets/..%2Fpackage.json', '/docs/assets/index.html'])(
    'answers %s with 404 P404',
    async (path) => {
      const response = await ctx.api.request('GET', path);
      expect(response.status).toBe(404);
      expect(response.json).toMatchObject({ errorCode: 'P404', errorName: 'not-found' });
    },
  );
});
