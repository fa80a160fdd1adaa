import type pg from 'pg';
import { findAccountsOfPartners } from '../../db/queries/account.queries';
import { coalescedLookup } from '../../db/coalesced-lookup';
import { createTestPartner } from '../support/fixtures';
import { testStack } from '../support/stack';
import { useTestApi } from '../support/use-test-api';
import { endPool, openPool } from '../../db/pool';

const ctx = useTestApi({ api: false });
let pool: pg.Pool;
beforeAll(() => {
  pool = openPool({ connectionString: testStack().databaseUrl, max: 2 });
  ctx.defer(() => endPool(pool));
});

/** Partners' accounts through a coalesced lookup that records the partner ids of each query. */
function countingAccountsOf(maxKeysPerQuery: number) {
  const queries: string[][] = [];
  const accountsOf = coalescedLookup(
    async (partnerIds: readonly string[]) => {
      queries.push([...partnerIds]);
      return findAccountsOfPartners(pool, partnerIds);
    },
    { maxKeysPerQuery },
  );
  return { accountsOf, queries };
}

describe('coalesced lookups', () => {
  it('lookups asked for in the same turn share one query, each answered with its own rows', async () => {
    const partners = await Promise.all([1, 2, 3].map(() => createTestPartner(ctx.orm)));
    const { accountsOf, queries } = countingAccountsOf(100);
    const asked = [0, 1, 2, 1, 0].map((index) => partners[index]!);
    const answers = await Promise.all(asked.map((partner) => accountsOf(partner.partnerId)));
    expect(queries).toEqual([partners.map((partner) => partner.partnerId)]);
    answers.forEach((rows, index) => {
      expect(rows?.map((row) => row.id).sort()).toEqual(
        Object.values(asked[index]!.accounts)
          .map((account) => account.id)
          .sort(),
      );
    });

    // Asked later, a lookup gets a query of its own: never an answer from before it was asked.
    expect((await accountsOf(partners[0]!.partnerId))?.length).toBe(7);
    expect(queries).toHaveLength(2);
  });

  it('a query holds at most maxKeysPerQuery keys', async () => {
    const partners = await Promise.all([1, 2, 3, 4, 5].map(() => createTestPartner(ctx.orm)));
    const { accountsOf, queries } = countingAccountsOf(2);
    await Promise.all(partners.map((partner) => accountsOf(partner.partnerId)));
    expect(queries.map((keys) => keys.length)).toEqual([2, 2, 1]);
  });

  it('a failing query fails every lookup that shared it, and the next lookups query again', async () => {
    let fail = true;
    const accountsOf = coalescedLookup(
      async (partnerIds: readonly string[]) => {
        if (fail) throw new Error('database gone');
        return findAccountsOfPartners(pool, partnerIds);
      },
      { maxKeysPerQuery: 100 },
    );
    const partner = await createTestPartner(ctx.orm);
    const outcomes = await Promise.allSettled([accountsOf(partner.partnerId), accountsOf(partner.partnerId)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect((await accountsOf(partner.partnerId))?.length).toBe(7);
  });
});
