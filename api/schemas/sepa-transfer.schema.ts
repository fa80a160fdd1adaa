import { isSEPACountry, validateIBAN } from 'ibantools';
import { z } from 'zod';
import { Decimal } from '../../core/money';
import {
  IBAN_ELECTRONIC_PATTERN,
  SEPA_MAX_AMOUNT,
  SEPA_NAME_MAX_LENGTH,
  SEPA_REMITTANCE_MAX_LENGTH,
  SEPA_TEXT_PATTERN,
  sepaNaturalPersonName,
  textLength,
} from '../../core/payment-limits';
import { jsonNumber } from '../http/exact-json';
import { amountField, amountScaleProblem, fitsIn } from './amount.schema';
import { addProblem } from './validation';

const sepaText = (field: string, description: string, example: string, max = SEPA_NAME_MAX_LENGTH) =>
  z
    .string({ error: `${field} is required` })
    .trim()
    .min(1, `${field} is required`)
    .refine(fitsIn(max), `${field} must be at most ${max} characters`)
    .regex(SEPA_TEXT_PATTERN, `${field} may use only letters a-z, digits, spaces and / - ? : ( ) . , ' +`)
    .meta({
      description: `${description} The SEPA character set only: letters a-z and A-Z, digits, spaces and / - ? : ( ) . , ' +`,
      maxLength: max,
      examples: [example],
    });

/** POST /v1/partner/sepa-transfer: EUR only; every pain.001 limit is enforced here, so an accepted transfer can always be submitted. */
export const sepaTransferBodySchema = z
  .strictObject({
    currency: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.literal('eur', { error: 'currency must be eur' }))
      .meta({ description: 'Always eur (letter case is ignored).', override: { enum: ['eur'], examples: ['eur'] } }),
    amount: amountField(`The amount to send, in eur (0.01 to ${SEPA_MAX_AMOUNT}).`, ['1250.00', jsonNumber('99.9')]),
    receiverType: z
      .enum(['NATURAL', 'LEGAL'], { error: 'receiverType must be NATURAL or LEGAL' })
      .meta({ description: 'NATURAL: give receiverFirstName and receiverLastName; LEGAL: give companyName.' }),
    receiverFirstName: sepaText(
      'receiverFirstName',
      'Only for a NATURAL receiver, and required then; with receiverLastName and the space between at most 70 characters.',
      'Jane',
    ).optional(),
    receiverLastName: sepaText('receiverLastName', 'Only for a NATURAL receiver, and required then.', 'Doe').optional(),
    companyName: sepaText('companyName', 'Only for a LEGAL receiver, and required then.', 'Acme GmbH').optional(),
    destinationIban: z.string({ error: 'destinationIban is required' }).meta({
      description: 'The IBAN of a SEPA country, in its electronic form: upper case, without spaces; the check digits must be right.',
      pattern: IBAN_ELECTRONIC_PATTERN.source,
      examples: ['DE89370400440532013000'],
    }),
    transferTitle: sepaText(
      'transferTitle',
      'The remittance information the receiver sees.',
      'Invoice 2026-118',
      SEPA_REMITTANCE_MAX_LENGTH,
    ),
  })
  .superRefine((body, context) => {
    const scaleProblem = amountScaleProblem(body.amount, 'eur');
    if (scaleProblem) addProblem(context, 'amount', scaleProblem);
    if (new Decimal(body.amount).gt(SEPA_MAX_AMOUNT))
      addProblem(context, 'amount', `amount must be at most ${SEPA_MAX_AMOUNT} for a SEPA transfer`);
    if (body.receiverType === 'NATURAL') {
      if (!body.receiverFirstName) addProblem(context, 'receiverFirstName', 'receiverFirstName is required for a NATURAL receiver');
      if (!body.receiverLastName) addProblem(context, 'receiverLastName', 'receiverLastName is required for a NATURAL receiver');
      if (body.companyName) addProblem(context, 'companyName', 'companyName is only for a LEGAL receiver');
      // pain.001 carries both names as one creditor name (Max70Text).
      const creditorName = sepaNaturalPersonName(body.receiverFirstName ?? '', body.receiverLastName ?? '');
      if (body.receiverFirstName && body.receiverLastName && textLength(creditorName) > SEPA_NAME_MAX_LENGTH) {
        context.addIssue({
          code: 'custom',
          message: `receiverFirstName and receiverLastName together are too long: with the space between them they make ${textLength(creditorName)} characters, the creditor name of a SEPA transfer allows at most ${SEPA_NAME_MAX_LENGTH}`,
        });
      }
    } else {
      if (!body.companyName) addProblem(context, 'companyName', 'companyName is required for a LEGAL receiver');
      if (body.receiverFirstName || body.receiverLastName)
        addProblem(context, 'receiverFirstName', 'receiver names are only for a NATURAL receiver');
    }
    const ibanProblem = ibanProblemOf(body.destinationIban);
    if (ibanProblem) addProblem(context, 'destinationIban', ibanProblem);
  })
  .meta({ id: 'SepaTransferRequest' });

function ibanProblemOf(iban: string): string | undefined {
  if (/\s/.test(iban)) return 'destinationIban must be written without spaces';
  if (iban !== iban.toUpperCase()) return 'destinationIban must be upper case';
  // What pain.001 carries: checked here with the builder's own pattern, so nothing accepted is refused there.
  if (!IBAN_ELECTRONIC_PATTERN.test(iban))
    return 'destinationIban must be the electronic form: letters and digits only, e.g. DE89370400440532013000';
  if (!validateIBAN(iban).valid) return 'destinationIban is not a valid IBAN (format, length or check digits)';
  if (!isSEPACountry(iban.slice(0, 2))) return `destinationIban country ${iban.slice(0, 2)} is not in the SEPA area`;
  return undefined;
}
