import type pg from 'pg';
import type { CryptoWithdrawalInput, ExchangeInput, SepaTransferInput } from '../../contracts';
import { cryptoWithdrawalContract, exchangeContract, sepaTransferContract } from '../../contracts';
import { Decimal } from '../../core/money';
import { cachedPartnerName } from '../../db/caches/partner-name-cache';

/**
 * What the Temporal UI shows of a workflow before anyone opens it: a one-line summary in the
 * list and markdown details on its page. Both are stored in the history in clear, so they carry
 * what an operator needs to recognise an operation (what, how much, for which partner, the ids)
 * and never personal data: no beneficiary names, IBANs, wallet addresses, titles or memos.
 */
export interface WorkflowMetadata {
  /** Markdown, one line. */
  staticSummary: string;
  /** Markdown. */
  staticDetails: string;
  /** The summary as plain text, for the OperationSummary search attribute (a list column, not rendered). */
  plainSummary: string;
}

/** The partner an operation is for; the name is undefined when it could not be looked up. */
export interface PartnerLabel {
  id: string;
  name: string | undefined;
}

/** A label never stops an operation: when the name cannot be read, the partner id stands in. */
export async function partnerLabelOf(pool: pg.Pool, partnerId: string): Promise<PartnerLabel> {
  try {
    return { id: partnerId, name: await cachedPartnerName(pool, partnerId) };
  } catch {
    return { id: partnerId, name: undefined };
  }
}

const PERSONAL_DATA_NOTE = 'Beneficiary data is personal data and is not shown here: `npm run ops -- operation show ID`.';

export function cryptoWithdrawalMetadata(input: CryptoWithdrawalInput, partner: PartnerLabel): WorkflowMetadata {
  const currency = input.currency.toUpperCase();
  const held = new Decimal(input.amount).plus(input.fee).toFixed();
  const forWhom = input.userId === null ? partnerText(partner) : `${partnerText(partner)} (user ${input.userId})`;
  return {
    ...summaryOf(`Crypto withdrawal ${input.amount} ${currency} on ${input.network} for ${forWhom}`),
    staticDetails: detailsOf(`Crypto withdrawal \`${cryptoWithdrawalContract.workflowId(input.withdrawalId)}\``, [
      ['Withdrawal id', code(input.withdrawalId)],
      ['Partner', partnerDetail(partner)],
      ['User', input.userId === null ? 'none: the partner withdraws for itself' : code(input.userId)],
      ['Amount', `${input.amount} ${currency} on ${input.network}`],
      ['Network fee', `${input.fee} ${currency}`],
      ['Held', `${held} ${currency} (amount + fee)`],
      ['Value', `${input.amountEur} EUR (travel-rule threshold check)`],
      ['Wallet', `${input.walletType}, receiver ${input.receiverType}`],
    ]),
  };
}

export function sepaTransferMetadata(input: SepaTransferInput, partner: PartnerLabel): WorkflowMetadata {
  return {
    ...summaryOf(`SEPA transfer ${input.amount} EUR for ${partnerText(partner)}`),
    staticDetails: detailsOf(`SEPA transfer \`${sepaTransferContract.workflowId(input.transferId)}\``, [
      ['Transfer id', code(input.transferId)],
      ['Partner', partnerDetail(partner)],
      ['Amount', `${input.amount} EUR (held until the bank answers)`],
      ['Receiver', input.receiverType],
    ]),
  };
}

export function exchangeMetadata(input: ExchangeInput, partner: PartnerLabel): WorkflowMetadata {
  const from = input.currencyFrom.toUpperCase();
  const to = input.currencyTo.toUpperCase();
  return {
    ...summaryOf(`Exchange ${input.amount} ${from} → ${to} for ${partnerText(partner)}`),
    staticDetails: detailsOf(
      `Exchange \`${exchangeContract.workflowId(input.exchangeId)}\``,
      [
        ['Exchange id', code(input.exchangeId)],
        ['Partner', partnerDetail(partner)],
        ['Amount', `${input.amount} ${from} into ${to}`],
        ['Rate lock', `${code(input.lockId)} (its rates and fee percentage apply)`],
        ['Requested at', input.requestedAt],
      ],
      false,
    ),
  };
}

function summaryOf(plainSummary: string): Pick<WorkflowMetadata, 'staticSummary' | 'plainSummary'> {
  return { plainSummary, staticSummary: markdownText(plainSummary) };
}

function detailsOf(title: string, rows: ReadonlyArray<[string, string]>, personalDataKept = true): string {
  const lines = [`**${title}**`, '', ...rows.map(([label, value]) => `- **${label}:** ${value}`)];
  if (personalDataKept) lines.push('', PERSONAL_DATA_NOTE);
  return lines.join('\n');
}

/** Plain text: summaryOf escapes the whole line. */
function partnerText(partner: PartnerLabel): string {
  return partner.name === undefined ? `partner ${partner.id}` : oneLine(partner.name);
}

function partnerDetail(partner: PartnerLabel): string {
  return partner.name === undefined ? code(partner.id) : `${markdownText(partner.name)} (${code(partner.id)})`;
}

function code(id: string): string {
  return `\`${id}\``;
}

/** A partner name is operator-typed text: one line, and no markdown of its own. */
function markdownText(text: string): string {
  return oneLine(text).replace(/[\\`*_[\]()<>#|~!]/g, (character) => `\\${character}`);
}

function oneLine(text: string): string {
  return text.replace(/\p{Cc}+/gu, ' ').trim();
}
