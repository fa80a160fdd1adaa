import { Migration } from '@mikro-orm/migrations';

/**
 * The sums the per-partner controls add up over a rolling 24 hours, each one index range scan that
 * skips UNSUCCESSFUL operations (their share is given back) and carries the amount:
 * - the daily EUR limit (db/services/velocity-limit.ts), summed in every reservation of a partner
 *   with a limit while its policy row is locked, so it must stay short: a partner's withdrawals
 *   (amount_eur) and SEPA transfers (amount, EUR) by creation time;
 * - the travel-rule threshold per destination (checkTravelRule): a partner's withdrawals to one
 *   address, letter case ignored, by creation time.
 * The status in their predicate makes an operation's final status change a non-HOT update: once or
 * twice in its life.
 */
export class Migration20261125103000_partner_limit_sums extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create index crypto_withdrawal_daily_sum_idx on crypto_withdrawal (partner_id, created_at) include (amount_eur)
  where status <> 'UNSUCCESSFUL';
create index sepa_transfer_daily_sum_idx on sepa_transfer (partner_id, created_at) include (amount)
  where status <> 'UNSUCCESSFUL';
create index crypto_withdrawal_destination_sum_idx on crypto_withdrawal (partner_id, lower(destination), created_at)
  include (amount_eur) where status <> 'UNSUCCESSFUL';
`);
  }
}
