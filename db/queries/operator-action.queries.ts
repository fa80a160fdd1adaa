import type { EntityManager } from '@mikro-orm/postgresql';

export interface OperatorActionListing {
  id: string;
  /** ISO 8601 in UTC, made by Postgres. */
  at: string;
  actor: string;
  osUser: string | null;
  action: string;
  subject: { type: string; id: string; partnerId: string | null; operationType?: string };
  reason: string | null;
  details: Record<string, unknown> | null;
}

interface Row {
  id: string;
  at: string;
  actor: string;
  os_user: string | null;
  action: string;
  subject_type: string;
  subject_id: string;
  partner_id: string | null;
  operation_type: string | null;
  reason: string | null;
  details: Record<string, unknown> | null;
}

/** The newest operator actions first, optionally of one partner and one action (`ops audit list`). */
export async function listOperatorActions(
  em: EntityManager,
  filter: { partnerId?: string; action?: string; limit: number },
): Promise<OperatorActionListing[]> {
  // Only the filters given, so each query can use its index.
  const conditions: string[] = [];
  const values: unknown[] = [];
  if (filter.partnerId !== undefined) {
    conditions.push('partner_id = ?');
    values.push(filter.partnerId);
  }
  if (filter.action !== undefined) {
    conditions.push('action = ?');
    values.push(filter.action);
  }
  const rows = await em.execute<Row[]>(
    `select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, actor, os_user, action,
            subject_type, subject_id, partner_id, operation_type, reason, details
       from operator_action
      ${conditions.length > 0 ? `where ${conditions.join(' and ')}` : ''}
      order by created_at desc, id desc
      limit ?`,
    [...values, filter.limit],
  );
  return rows.map((row) => ({
    id: row.id,
    at: row.at,
    actor: row.actor,
    osUser: row.os_user,
    action: row.action,
    subject: {
      type: row.subject_type,
      id: row.subject_id,
      partnerId: row.partner_id,
      ...(row.operation_type === null ? {} : { operationType: row.operation_type }),
    },
    reason: row.reason,
    details: row.details,
  }));
}
