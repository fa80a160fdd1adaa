import { createApiKey } from '../../db/services/api-key.service';
import { createTestPartner } from '../support/fixtures';
import { startTestApi } from '../support/http';
import { runOpsCli } from '../support/ops-cli';
import { useTestApi } from '../support/use-test-api';

const ctx = useTestApi();

describe('API key revocation across API processes', () => {
  it('a key revoked with the operator CLI is refused by the very next request to every API, which keep serving the other keys', async () => {
    const second = await startTestApi();
    ctx.defer(() => second.stop());
    const partner = await createTestPartner(ctx.orm);
    const other = await ctx.orm.em.fork().transactional((em) => createApiKey(em, partner.partnerId, new Date()));
    for (const api of [ctx.api, second]) {
      // Twice: the second answer comes from the API's memory of the key.
      for (let round = 0; round < 2; round += 1) {
        expect((await api.request('GET', '/v1/partner/balances', { apiKey: partner.apiKey })).status).toBe(200);
        expect((await api.request('GET', '/v1/partner/balances', { apiKey: other.apiKey })).status).toBe(200);
      }
    }

    const revoked = await runOpsCli(['key', 'revoke', '--key', partner.apiKeyId]);
    expect(revoked.code).toBe(0);

    for (const api of [ctx.api, second]) {
      const refused = await api.request('GET', '/v1/partner/balances', { apiKey: partner.apiKey });
      expect(refused.status).toBe(401);
      expect(refused.json).toMatchObject({ errorCode: 'P401', errorMessage: 'unknown, revoked or expired API key' });
      expect((await api.request('GET', '/v1/partner/balances', { apiKey: other.apiKey })).status).toBe(200);
    }
  });
});
