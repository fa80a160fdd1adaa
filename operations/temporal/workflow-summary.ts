import type pg from 'pg';
import { cryptoWithdrawalContract, exchangeContract, sepaTransferContract } from '../../contracts';
import { Decimal } from '../../core/money';
import { cachedPartnerName } from '../../db/caches/partner-name-cache';
import type { AcceptedExchange, AcceptedSepaTransfer, AcceptedWithdrawal } from '../../db/queries/accepted-operation.queries';

/** The Temporal UI's summary and details of a workflow: stored in clear, so no personal data (names, IBANs, addresses). */
export interface WorkflowMetadata {
  /** Markdown, one line. */
  staticSummary: string;
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

export function cryptoWithdrawalMetadata(withdrawalId: string, accepted: AcceptedWithdrawal, partner: PartnerLabel): WorkflowMetadata {
  const currency = accepted.currency.toUpperCase();
  const held = new Decimal(accepted.amount).plus(accepted.fee).toFixed();
  const forWhom = accepted.user_id === null ? partnerText(partner) : `${partnerText(partner)} (user ${accepted.user_id})`;
  return {
    ...summaryOf(`Crypto withdrawal ${accepted.amount} ${currency} on ${accepted.network} for ${forWhom}`),
    staticDetails: detailsOf(`Crypto withdrawal \`${cryptoWithdrawalContract.workflowId(withdrawalId)}\``, [
      ['Withdrawal id', code(withdrawalId)],
      ['Partner', partnerDetail(partner)],
      ['User', accepted.user_id === null ? 'none: the partner withdraws for itself' : code(accepted.user_id)],
      ['Amount', `${accepted.amount} ${currency} on ${accepted.network}`],
      ['Network fee', `${accepted.fee} ${currency}`],
      ['Held', `${held} ${currency} (amount + fee)`],
      ['Value', `${accepted.amount_eur} EUR (travel-rule threshold check)`],
      ['Wallet', `${accepted.wallet_type}, receiver ${accepted.receiver_type}`],
    ]),
  };
}

export function sepaTransferMetadata(transferId: string, accepted: AcceptedSepaTransfer, partner: PartnerLabel): WorkflowMetadata {
  return {
    ...summaryOf(`SEPA transfer ${accepted.amount} EUR for ${partnerText(partner)}`),
    staticDetails: detailsOf(`SEPA transfer \`${sepaTransferContract.workflowId(transferId)}\``, [
      ['Transfer id', code(transferId)],
      ['Partner', partnerDetail(partner)],
      ['Amount', `${accepted.amount} EUR (held until the bank answers)`],
      ['Receiver', accepted.receiver_type],
    ]),
  };
}

export function exchangeMetadata(exchangeId: string, accepted: AcceptedExchange, partner: PartnerLabel): WorkflowMetadata {
  const from = accepted.currency_from.toUpperCase();
  const to = accepted.currency_to.toUpperCase();
  return {
    ...summaryOf(`Exchange ${accepted.amount_from} ${from} → ${to} for ${partnerText(partner)}`),
    staticDetails: detailsOf(
      `Exchange \`${exchangeContract.workflowId(exchangeId)}\``,
      [
        ['Exchange id', code(exchangeId)],
        ['Partner', partnerDetail(partner)],
        ['Amount', `${accepted.amount_from} ${from} into ${to}`],
        ['Rate lock', `${code(accepted.lock_id)} (its rates and fee percentage apply)`],
        ['Requested at', accepted.requested_at],
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
