import { log, setCurrentDetails, sleep, workflowInfo } from '@temporalio/workflow';

/**
 * A network's sweeper loop, EVM or UTXO: a round, then its poll interval's sleep, `rounds` times or until Temporal suggests
 * continuing as new (the caller does). It never fails: a round that fails for good is logged, and the next waits `afterFailureMs`.
 */
export async function sweeperLoop<Result extends { pollIntervalMs: number }>(options: {
  network: string;
  rounds: number;
  afterFailureMs: number;
  round: () => Promise<Result>;
  details: (result: Result) => string;
}): Promise<void> {
  const { network } = options;
  for (let done = 0; done < options.rounds && !workflowInfo().continueAsNewSuggested; done += 1) {
    let wait: number;
    try {
      const result = await options.round();
      setCurrentDetails(options.details(result));
      wait = result.pollIntervalMs;
    } catch (error) {
      log.warn(`sweep round of ${network} failed for good; trying again later`, { error });
      setCurrentDetails(`**${network}**: the last round failed (see its activity); the next one starts within a minute.`);
      wait = options.afterFailureMs;
    }
    await sleep(wait);
  }
}
