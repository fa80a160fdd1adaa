import { Migration } from '@mikro-orm/migrations';

/**
 * Temporal is a door to the money too: anyone who reaches it could start a workflow with input of
 * their own. `accepted_operation` is what the API accepted, written before it starts the workflow;
 * the first money-moving activity moves money only for a row here whose request equals its input
 * (activities/accepted-operation.guard.ts). `refused_operation` keeps every workflow refused for
 * lack of such a row, for reconciliation and operators: nothing was held for them.
 */
export class Migration20261124010000_accepted_operations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table accepted_operation (
  id uuid primary key,
  kind text not null check (kind in ('EXCHANGE', 'SEPA_TRANSFER', 'CRYPTO_WITHDRAWAL')),
  partner_id uuid not null references partner (id),
  workflow_id text not null unique check (length(workflow_id) <= 200),
  request jsonb not null check (pg_column_size(request) <= 65536),
  accepted_at timestamptz not null default now()
);`);
    this.addSql(`
create table refused_operation (
  id bigint generated always as identity primary key,
  workflow_id text not null check (length(workflow_id) <= 1000),
  run_id text not null check (length(run_id) <= 100),
  workflow_type text not null check (length(workflow_type) <= 200),
  operation_id text check (length(operation_id) <= 200),
  reason text not null check (length(reason) <= 1000),
  refused_at timestamptz not null default now(),
  unique (workflow_id, run_id)
);`);
    this.addSql(`create index refused_operation_refused_at_idx on refused_operation (refused_at);`);
  }
}
