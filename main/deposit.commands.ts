import { z } from 'zod';
import { CURRENCIES } from '../core/currencies';
import { findCryptoDeposits } from '../db/queries/crypto-deposit.queries';
import { approveManualCredit, depositByOperator } from '../operations/operator/manual-credit';
import type { Command } from './ops-command';
import { command, limitFlag, UsageMistake, uuidFlag } from './ops-command';
import { UUID } from '../core/uuid';

/** The deposit commands of the operator CLI (main/ops.cli.ts): manual credits, each writing its audit row with its effect, and the list of deposits found on chain. */
export const DEPOSIT_USAGE = `  deposit --partner ID --currency C --amount A [--type sepaDeposit|fiatDeposit|cryptoDeposit]
                                         (above MANUAL_CREDIT_APPROVAL_ABOVE_EUR: a pending credit, for another operator)
  deposit approve ID                     (posts a pending credit; not by the operator who asked for it)
  deposit list [--below-minimum] [--partner ID] [--limit N]
                                         (deposits found on chain, newest first; --below-minimum: only those not
                                          credited for being below the network's minDeposit, which are in our custody)`;

const LIST_LIMIT = 100;

export const depositCommands: Record<string, Command> = {
  'deposit list': command({
    changesState: false,
    flags: {
      'below-minimum': z.boolean().optional(),
      partner: uuidFlag.optional(),
      limit: limitFlag(1000),
    },
    async run({ em, flags }) {
      const belowMinimum = flags['below-minimum'] ?? false;
      const deposits = await findCryptoDeposits(em, {
        belowMinimum,
        partnerId: flags.partner?.toLowerCase(),
        limit: flags.limit ?? LIST_LIMIT,
      });
      return belowMinimum ? { belowMinimum: deposits } : { deposits };
    },
  }),

  deposit: command({
    changesState: true,
    flags: {
      partner: uuidFlag,
      currency: z.enum(CURRENCIES),
      amount: z.string().regex(/^\d+(\.\d+)?$/, 'must be a plain decimal, e.g. 12.5'),
      type: z.enum(['sepaDeposit', 'fiatDeposit', 'cryptoDeposit']).optional(),
    },
    async run({ em, flags, now, settings, operator, reason }) {
      const type = flags.type ?? (flags.currency === 'eur' ? 'sepaDeposit' : 'cryptoDeposit');
      const approvalAboveEur = settings.operatorCli.manualCreditApprovalAboveEur;
      const outcome = await depositByOperator(
        em,
        operator,
        { partnerId: flags.partner, currency: flags.currency, amount: flags.amount, type, reason },
        { eurRates: settings.eurRates, approvalAboveEur },
        now,
      );
      if (outcome.kind === 'posted') {
        const { deposit, amountEur } = outcome;
        return {
          output: { transactionId: deposit.id },
          audit: {
            action: 'deposit',
            subject: { type: 'deposit', id: deposit.id, partnerId: deposit.partnerId },
            details: { currency: deposit.currency, amount: deposit.amount, type, amountEur },
          },
        };
      }
      const { credit, amountEur, why } = outcome;
      return {
        output: {
          pendingCreditId: credit.id,
          status: 'PENDING_APPROVAL',
          why,
          partnerId: credit.partnerId,
          currency: credit.currency,
          amount: credit.amount,
          amountEur,
          approvalAboveEur,
          requestedBy: credit.requestedBy,
        },
        audit: {
          action: 'deposit-request',
          subject: { type: 'manual-credit', id: credit.id, partnerId: credit.partnerId },
          details: { currency: credit.currency, amount: credit.amount, type, amountEur, approvalAboveEur, why },
        },
      };
    },
  }),

  'deposit approve': command({
    changesState: true,
    takesArgument: 'pending credit ID',
    async run({ em, args, now, settings, operator }) {
      const id = args[0] ?? '';
      if (!UUID.test(id)) throw new UsageMistake(`"${id}" is not a pending credit id (a UUID, as deposit printed it)`);
      const { credit, transactionId } = await approveManualCredit(
        em,
        operator,
        id.toLowerCase(),
        now,
        settings.operatorCli.manualCreditApprovalOsUsers,
      );
      return {
        output: {
          pendingCreditId: credit.id,
          status: credit.status,
          transactionId,
          requestedBy: credit.requestedBy,
          approvedBy: credit.approvedBy,
        },
        audit: {
          action: 'deposit-approve',
          subject: { type: 'manual-credit', id: credit.id, partnerId: credit.partnerId },
          details: {
            transactionId,
            currency: credit.currency,
            ...(credit.incomingEntryRef ? { incomingEntryRef: credit.incomingEntryRef } : {}),
            amount: credit.amount,
            type: credit.type,
            amountEur: credit.amountEur,
            requestedBy: credit.requestedBy,
          },
        },
      };
    },
  }),
};
