/** The empty workflow's one step: no I/O, so only Temporal's own cost is measured. */
export function createEmptyActivities() {
  return {
    async nothing(): Promise<string> {
      return 'done';
    },
  };
}

export type EmptyActivities = ReturnType<typeof createEmptyActivities>;
