import { z } from 'zod';

/** Path parameters arrive as text; both must be plain integers (no "3.0", no "+3"). */
export function transactionHistoryParamsSchema(currentYear: number) {
  const integerText = /^\d{1,4}$/;
  return z.object({
    month: z
      .string()
      .regex(integerText, 'month must be an integer from 1 to 12')
      .transform(Number)
      .refine((month) => month >= 1, 'month must be at least 1')
      .refine((month) => month <= 12, 'month must be at most 12'),
    year: z
      .string()
      .regex(integerText, `year must be ${currentYear} or ${currentYear - 1}`)
      .transform(Number)
      .refine((year) => year === currentYear || year === currentYear - 1, `year must be ${currentYear} or ${currentYear - 1}`),
  });
}
