import { z } from 'zod';
import { receiveSimulatedCredit } from '../activities/adapters/bank/simulated-bank-credits';
import { DomainError } from '../core/errors';
import { stringProblem } from '../core/text-safety';
import type { Settings } from '../core/settings';
import { listBankDocumentExceptions } from '../db/queries/bank-document-exception.queries';
import { listOpenIncomingCredits } from '../db/queries/incoming-sepa-credit.queries';
import { assignIncomingCredit, returnIncomingCredit } from '../operations/operator/incoming-sepa-credit';
import type { Command } from './ops-command';
import { command, limitFlag, requiredText, UsageMistake, uuidFlag } from './ops-command';

/** The incoming-SEPA commands of the operator CLI (main/ops.cli.ts); each that changes something writes its audit row with its effect. */
export const BANK_USAGE = `  bank receive --iban IBAN --amount A --debtor-name N --debtor-iban I [--remittance R] [--entry-ref REF]
                                         (development only: the simulated bank books a SEPA credit on IBAN and notifies it)
  bank unmatched [--limit N]             (incoming credits no partner account took, oldest first)
  bank exceptions [--limit N] [--before ID] [--with-document]
                                         (bank documents the ingest refused and entries it skipped, newest first)
  bank assign ENTRY_REF --partner ID --reason R   (credits it to the partner's ACTIVE EUR account, once; a second
                                         operator's deposit approve first when over the threshold or not the IBAN's partner)
  bank return ENTRY_REF --reason R       (sends it back to the debtor by a SEPA transfer, once)`;

const UNMATCHED_LIMIT = { default: 100, max: 1000 };

/** IBANs as people write them (spaces, lower case) in the electronic form. */
const iban = z
  .string()
  .transform((value) => value.replace(/\s+/g, '').toUpperCase())
  .refine((value) => /^[A-Z]{2}[0-9]{2}[A-Z0-9]{1,30}$/.test(value), 'must be an IBAN');

/** Max35Text, as the bank wrote it in NtryRef. */
function entryRefOf(args: readonly string[]): string {
  const entryRef = args[0] ?? '';
  if (entryRef.length === 0 || entryRef.length > 35 || stringProblem(entryRef)) {
    throw new UsageMistake(`"${entryRef.slice(0, 40)}" is not an entry reference (1 to 35 characters, as bank unmatched printed it)`);
  }
  return entryRef;
}

function requiredReason(reason: string | null, command: string): string {
  if (reason === null) throw new UsageMistake(`${command} needs --reason: why, for the audit trail`);
  return reason;
}

/** Only where SIMULATED_RAILS names sepa, or on `npm start`'s embedded database (no DATABASE_URL). */
function requireSimulatedBank(settings: Settings): void {
  if (settings.databaseUrl === undefined || settings.acceptedSimulatedRails.includes('sepa')) return;
  throw new DomainError(
    'invalid-request',
    'bank receive books a credit at the simulated bank, and this deployment does not declare SEPA simulated (SIMULATED_RAILS has no sepa): refused',
  );
}

export const bankCommands: Record<string, Command> = {
  'bank receive': command({
    changesState: true,
    flags: {
      iban,
      amount: z.string().regex(/^\d+(\.\d{1,2})?$/, 'must be a plain decimal with at most 2 decimals, e.g. 125.5'),
      'debtor-name': requiredText,
      'debtor-iban': iban,
      remittance: requiredText.optional(),
      'entry-ref': requiredText.optional(),
    },
    async run({ em, flags, now, settings }) {
      requireSimulatedBank(settings);
      const received = await receiveSimulatedCredit(
        em,
        {
          accountIban: flags.iban,
          amount: flags.amount,
          debtorName: flags['debtor-name'],
          debtorIban: flags['debtor-iban'],
          remittance: flags.remittance ?? null,
          ...(flags['entry-ref'] === undefined ? {} : { entryRef: flags['entry-ref'] }),
        },
        now,
      );
      return {
        output: { ...received, iban: flags.iban, amount: flags.amount },
        audit: {
          action: 'bank-receive',
          subject: { type: 'simulated-bank-notification', id: received.notificationId, partnerId: null },
          // Our account and the money; the debtor's name and IBAN are personal data, kept out of the trail.
          details: { entryRef: received.entryRef, iban: flags.iban, amount: flags.amount, redelivery: received.redelivery },
        },
      };
    },
  }),

  'bank unmatched': command({
    changesState: false,
    flags: {
      limit: limitFlag(UNMATCHED_LIMIT.max),
    },
    async run({ em, flags }) {
      return { unmatched: await listOpenIncomingCredits(em, flags.limit ?? UNMATCHED_LIMIT.default) };
    },
  }),

  'bank exceptions': command({
    changesState: false,
    flags: {
      limit: limitFlag(UNMATCHED_LIMIT.max),
      before: z
        .string()
        .regex(/^[1-9][0-9]{0,17}$/, 'must be the id of a listed exception')
        .optional(),
      'with-document': z.boolean().optional(),
    },
    async run({ em, flags }) {
      const exceptions = await listBankDocumentExceptions(em, {
        limit: flags.limit ?? UNMATCHED_LIMIT.default,
        beforeId: flags.before,
        withDocument: flags['with-document'] ?? false,
      });
      return { exceptions };
    },
  }),

  'bank assign': command({
    changesState: true,
    takesArgument: 'ENTRY_REF',
    flags: { partner: uuidFlag },
    async run({ em, flags, args, now, reason, operator, settings }) {
      const entryRef = entryRefOf(args);
      requiredReason(reason, 'bank assign');
      const partnerId = flags.partner.toLowerCase();
      const approvalAboveEur = settings.operatorCli.manualCreditApprovalAboveEur;
      const assignment = await assignIncomingCredit(
        em,
        operator,
        { entryRef, partnerId, reason },
        { eurRates: settings.eurRates, approvalAboveEur },
        now,
      );
      if (assignment.kind === 'pending') {
        const { credit, pending, why } = assignment;
        return {
          output: { entryRef, status: 'PENDING_APPROVAL', pendingCreditId: pending.id, partnerId, amount: credit.amount, why },
          audit: {
            action: 'bank-assign-request',
            subject: { type: 'manual-credit', id: pending.id, partnerId },
            details: { entryRef, amount: credit.amount, iban: credit.accountIban, approvalAboveEur, why },
          },
        };
      }
      const { credit, depositId } = assignment;
      return {
        output: { entryRef, status: credit.status, partnerId: credit.partnerId, amount: credit.amount, transactionId: depositId },
        audit: {
          action: 'bank-assign',
          subject: { type: 'incoming-sepa-credit', id: credit.id, partnerId: credit.partnerId ?? null },
          details: {
            entryRef,
            amount: credit.amount,
            iban: credit.accountIban,
            unmatchedReason: credit.unmatchedReason,
            transactionId: depositId,
          },
        },
      };
    },
  }),

  'bank return': command({
    changesState: true,
    takesArgument: 'ENTRY_REF',
    async run({ em, args, now, reason }) {
      const entryRef = entryRefOf(args);
      requiredReason(reason, 'bank return');
      const { credit, returnId } = await returnIncomingCredit(em, entryRef, now);
      return {
        output: {
          entryRef,
          status: credit.status,
          amount: credit.amount,
          returnId,
          note: 'the incoming-sepa Schedule submits the return to the bank on its next run and settles it on the bank’s answer',
        },
        audit: {
          action: 'bank-return',
          subject: { type: 'incoming-sepa-credit', id: credit.id, partnerId: null },
          details: { entryRef, amount: credit.amount, iban: credit.accountIban, unmatchedReason: credit.unmatchedReason, returnId },
        },
      };
    },
  }),
};
