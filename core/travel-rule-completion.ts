import { z } from 'zod';
import { stringProblem } from './text-safety';

// A travel-rule completion. Pure: the workflow validates updates with it during replay too.

/** Text that Postgres (text and jsonb) and every downstream format can carry. */
const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((value) => stringProblem(value) === undefined, 'must not contain control characters or malformed Unicode');

const countryCode = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code');

const naturalPerson = z.strictObject({
  naturalPerson: z.strictObject({
    name: z.strictObject({
      nameIdentifier: z
        .array(
          z.strictObject({
            primaryIdentifier: text(100),
            secondaryIdentifier: text(100).optional(),
            nameIdentifierType: z.enum(['LEGL', 'ALIA', 'BIRT', 'MAID', 'MISC']),
          }),
        )
        .min(1)
        .max(5),
    }),
    geographicAddress: z
      .array(
        z.strictObject({
          addressType: z.enum(['HOME', 'BIZZ', 'GEOG']),
          addressLine: z.array(text(70)).min(1).max(7),
          townName: text(35),
          country: countryCode,
        }),
      )
      .max(3)
      .optional(),
    nationalIdentification: z
      .strictObject({
        nationalIdentifier: text(35),
        nationalIdentifierType: z.enum(['ARNU', 'CCPT', 'RAID', 'DRLC', 'FIIN', 'TXID', 'SOCS', 'IDCD', 'LEIX', 'MISC']),
        countryOfIssue: countryCode.optional(),
      })
      .optional(),
    dateAndPlaceOfBirth: z.strictObject({ dateOfBirth: z.iso.date(), placeOfBirth: text(70) }).optional(),
    customerIdentification: text(50).optional(),
    countryOfResidence: countryCode.optional(),
  }),
});

const legalPerson = z.strictObject({
  legalPerson: z.strictObject({
    name: z.strictObject({
      nameIdentifier: z
        .array(z.strictObject({ legalPersonName: text(100), legalPersonNameIdentifierType: z.enum(['LEGL', 'SHRT', 'TRAD']) }))
        .min(1)
        .max(5),
    }),
    customerIdentification: text(50).optional(),
    countryOfRegistration: countryCode.optional(),
  }),
});

export const ivms101BeneficiarySchema = z.strictObject({
  beneficiaryPersons: z
    .array(z.union([naturalPerson, legalPerson]))
    .min(1)
    .max(5),
  accountNumber: z.array(text(128)).max(5).optional(),
});

export const travelRuleCompletionSchema = z.strictObject({
  /** The person (or tool) accountable for the data: an email address. */
  completedBy: z.email('completedBy must be an email address').max(254),
  beneficiary: ivms101BeneficiarySchema.optional(),
  /** The audit row `ops travel-rule complete` wrote first; the completion counts only when it is there. */
  operatorActionId: z.uuid('operatorActionId must be a UUID').optional(),
});

export type TravelRuleCompletion = z.output<typeof travelRuleCompletionSchema>;

/** The completion, or one line per problem: the message an Update's caller sees. */
export function parseTravelRuleCompletion(input: unknown): { completion: TravelRuleCompletion } | { problems: string } {
  const result = travelRuleCompletionSchema.safeParse(input);
  if (result.success) return { completion: result.data };
  const lines = result.error.issues.map((issue) => {
    const field = issue.path.map(String).join('.');
    return field ? `${field}: ${issue.message}` : issue.message;
  });
  return { problems: [...new Set(lines)].join('\n') };
}
