import { shapeActivityNames } from './same-shape.workflow';

/** The empty workflows' steps: no I/O, so only Temporal's own cost is measured. */
export function createEmptyActivities() {
  // The same-shape ceilings' steps, under the money movements' activity names (same-shape.workflow.ts).
  const sameShapeSteps = Object.fromEntries(shapeActivityNames().map((name) => [name, async (): Promise<void> => undefined]));
  return {
    ...sameShapeSteps,
    async nothing(): Promise<string> {
      return 'done';
    },
  };
}

export type EmptyActivities = { nothing(): Promise<string> };
