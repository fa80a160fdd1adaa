import type { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { BankAdapter } from './adapters/bank/bank-adapter';
import type { ChainAdapter } from './adapters/chain/chain-adapter';

export type { Clock } from '../core/clock';

export interface CompliancePolicy {
  travelRuleThresholdEur: string;
  travelRuleDeadlineMs: number;
  denyListedAddresses: readonly string[];
}

/** Everything activities touch, injected so tests can hand in their own (STYLE: createActivities). */
export interface ActivityDependencies {
  orm: MikroORM;
  pool: pg.Pool;
  clock: Clock;
  log: Logger;
  chain: ChainAdapter;
  bank: BankAdapter;
  compliance: CompliancePolicy;
}
