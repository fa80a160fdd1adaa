import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CURRENCY_SCALE } from '../../core/currencies';
import type { Currency } from '../../core/currencies';
import { DomainError } from '../../core/errors';
import { Decimal, MAX_AMOUNT } from '../../core/money';
import type { Account } from '../entities/account.entity';
import { Deposit } from '../entities/deposit.entity';
import type { DepositType } from '../entities/deposit.entity';
import { postTransferDirectly } from '../ledger/ledger';
import { findPartnerAccount } from '../ledger/accounts';
import { requirePartner } from './partner.service';

export interface NewDeposit {
  /** The deposit's (and its ledger transfer's) id; a new one when not given. */
  id?: string;
  partnerId: string;
  currency: Currency;
  amount: string;
  type: DepositType;
  /** The house account the money comes from: EXTERNAL_DEPOSITS (default), or SEPA_SUSPENSE for an assigned incoming credit. */
  source?: 'EXTERNAL_DEPOSITS' | 'SEPA_SUSPENSE';
}

/** What a deposit would credit, checked (partner, account, amount, type) without changing anything. */
export async function checkDeposit(em: EntityManager, input: NewDeposit): Promise<{ account: Account; amount: Decimal }> {
  await requirePartner(em, input.partnerId);
  const amount = new Decimal(input.amount);
  if (!amount.isFinite() || amount.lte(0) || amount.gt(MAX_AMOUNT)) {
    throw new DomainError('invalid-request', 'amount must be a positive decimal');
  }
  if (amount.decimalPlaces() > CURRENCY_SCALE[input.currency]) {
    throw new DomainError('invalid-request', `${input.currency} allows at most ${CURRENCY_SCALE[input.currency]} decimals`);
  }
  if (input.type === 'cryptoDeposit' && input.currency === 'eur') {
    throw new DomainError('invalid-request', 'a cryptoDeposit must be in a crypto currency');
  }
  if (input.type !== 'cryptoDeposit' && input.currency !== 'eur') {
    throw new DomainError('invalid-request', `a ${input.type} must be in eur`);
  }
  const account = await findPartnerAccount(em, input.partnerId, input.currency);
  if (!account) throw new DomainError('not-found', `partner ${input.partnerId} has no ${input.currency} account`);
  return { account, amount };
}

/** Money arriving from outside: posted at once from the external-deposits system account (or from suspense, see NewDeposit.source). */
export async function postDeposit(em: EntityManager, input: NewDeposit, now: Date): Promise<Deposit> {
  const { account, amount } = await checkDeposit(em, input);
  const id = input.id ?? randomUUID();
  await postTransferDirectly(
    em,
    {
      transferId: id,
      kind: 'DEPOSIT',
      postings: [
        { systemAccount: input.source ?? 'EXTERNAL_DEPOSITS', currency: input.currency, amount: amount.negated().toFixed() },
        { accountId: account.id, amount: amount.toFixed() },
      ],
    },
    now,
  );
  const deposit = em.create(Deposit, {
    id,
    partnerId: input.partnerId,
    accountId: account.id,
    currency: input.currency,
    amount: amount.toFixed(),
    type: input.type,
    createdAt: now,
  });
  await em.flush();
  return deposit;
}
