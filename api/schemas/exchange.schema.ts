import { z } from 'zod';
import { CURRENCIES } from '../../core/currencies';
import { jsonNumber } from '../http/exact-json';
import { amountField, amountScaleProblem, currencyField } from './amount.schema';
import { addProblem } from './validation';

const currency = (description: string, example: string) =>
  currencyField(CURRENCIES, description, example, `must be one of ${CURRENCIES.join(', ')}`);

/** POST /v1/partner/exchange: amount is in currencyFrom. */
export const exchangeBodySchema = z
  .strictObject({
    amount: amountField('The amount to exchange, in `currencyFrom`.', [jsonNumber('100.50'), '0.000000000000000001']),
    currencyFrom: currency('The currency debited (letter case is ignored).', 'eur'),
    currencyTo: currency('The currency credited; must differ from currencyFrom (letter case is ignored).', 'btc'),
    // Any text: a lockId that names no lock is P432 (spec), not a malformed body.
    lockId: z
      .string({ error: 'lockId must be the id of a lock from get-lock' })
      .min(1, 'lockId must be the id of a lock from get-lock')
      .meta({
        description: "The id of a rate lock from GET /v1/partner/get-lock: unused, not expired, and this partner's.",
        examples: ['5b0e1c9e-8d55-4a8f-9a51-1f3c2f0f4b7e'],
      }),
  })
  .superRefine((body, context) => {
    if (body.currencyFrom === body.currencyTo) addProblem(context, 'currencyTo', 'currencyTo must differ from currencyFrom');
    const scaleProblem = amountScaleProblem(body.amount, body.currencyFrom);
    if (scaleProblem) addProblem(context, 'amount', scaleProblem);
  })
  .meta({ id: 'ExchangeRequest' });
