import { z } from 'zod';
import { CURRENCIES } from '../../core/currencies';
import { amountScaleProblem, amountSchema, slug } from './amount.schema';

const currency = slug.pipe(z.enum(CURRENCIES, { error: `must be one of ${CURRENCIES.join(', ')}` }));

/** POST /v1/partner/exchange: amount is in currencyFrom. */
export const exchangeBodySchema = z
  .strictObject({
    amount: amountSchema,
    currencyFrom: currency,
    currencyTo: currency,
    // Any text: a lockId that names no lock is P432 (spec), not a malformed body.
    lockId: z.string({ error: 'lockId must be the id of a lock from get-lock' }).min(1, 'lockId must be the id of a lock from get-lock'),
  })
  .superRefine((body, context) => {
    if (body.currencyFrom === body.currencyTo) {
      context.addIssue({ code: 'custom', path: ['currencyTo'], message: 'currencyTo must differ from currencyFrom' });
    }
    const scaleProblem = amountScaleProblem(body.amount, body.currencyFrom);
    if (scaleProblem) context.addIssue({ code: 'custom', path: ['amount'], message: scaleProblem });
  });

export type ExchangeBody = z.output<typeof exchangeBodySchema>;
