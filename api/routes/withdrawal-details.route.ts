import { z } from 'zod';
import { DomainError } from '../../core/errors';
import { Decimal } from '../../core/money';
import { findWithdrawalDetails } from '../../db/queries/crypto-withdrawal.queries';
import type { WithdrawalDetailsRow } from '../../db/queries/crypto-withdrawal.queries';
import type { ApiDependencies } from '../dependencies';
import { jsonNumber } from '../http/exact-json';
import { respond } from '../http/respond';
import type { ApiContext } from '../state';

const withdrawalId = z.uuid();

/** GET /v1/crypto-withdrawal/details/:withdrawalId: unknown and foreign ids are both 404 P421. */
export function withdrawalDetailsRoute(deps: ApiDependencies) {
  return async (ctx: ApiContext): Promise<void> => {
    const id = withdrawalId.safeParse(ctx.params.withdrawalId);
    const row = id.success ? await findWithdrawalDetails(deps.readPool, ctx.state.partnerId, id.data) : undefined;
    if (!row) throw new DomainError('withdrawal-not-found', 'no such withdrawal');
    respond(ctx, 200, {
      id: row.id,
      amount: jsonNumber(new Decimal(row.amount)),
      fee: jsonNumber(new Decimal(row.fee)),
      destination: row.destination,
      status: row.status,
      transactionHash: row.transaction_hash ?? '',
      currency: { network: row.currency === 'usdc' ? row.network : '', name: row.currency.toUpperCase() },
      createdAt: row.created_at.toISOString(),
      user: userOf(row),
    });
  };
}

function userOf(row: WithdrawalDetailsRow): Record<string, unknown> | null {
  if (row.external_user_id === null) return null;
  return {
    externalUserId: row.external_user_id,
    email: row.email,
    firstName: row.first_name,
    lastName: row.last_name,
    address: row.address,
    city: row.city,
    country: row.country,
    documentType: row.document_type,
    documentNumber: row.document_number,
    pesel: row.pesel,
    birthCountry: row.birth_country,
    birthDate: row.birth_date,
  };
}
