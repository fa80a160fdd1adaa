import type { ActivityDependencies } from './dependencies';
import { createReconciliationActivities } from './reconciliation.activities';

export function createActivities(deps: ActivityDependencies) {
  return {
    ...createReconciliationActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
