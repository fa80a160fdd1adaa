import { railDeclarationProblems, railsKnownTo } from '../core/rails';
import { InvalidSettingsError, loadSettings } from '../core/settings';
import type { Settings } from '../core/settings';
import { isPortFree } from '../dev/free-port';
import type { TemporalClusterPorts } from '../dev/temporal-cluster-config';
import { temporalServerBuildProblem } from '../dev/temporal-server-build';

/**
 * What `npm run start:cluster` checks before any long work: the children's settings, the ports to bind, and a way to get
 * the Temporal server. One line per problem, naming what to change.
 */
export async function clusterPreflightProblems(options: {
  /** The environment the worker and the API are started with, but for what the infrastructure gives later. */
  childEnv: Readonly<Record<string, string>>;
  projectRoot: string;
  temporalPorts: TemporalClusterPorts;
  host: string;
}): Promise<string[]> {
  let child: Settings;
  try {
    child = loadSettings(options.childEnv, options.projectRoot);
  } catch (error) {
    if (error instanceof InvalidSettingsError) return [...error.problems];
    throw error;
  }
  const build = temporalServerBuildProblem();
  return [
    // What `npm run worker` would refuse at its start; the API's view of the rails is a part of the worker's.
    ...railDeclarationProblems(railsKnownTo(child, 'worker'), child.acceptedSimulatedRails),
    ...(await portProblems(child, options.temporalPorts, options.host)),
    ...(build === undefined ? [] : [build]),
  ];
}

/** Every port the worker, the API and the Temporal server will bind: each once, and free on its interface now. */
async function portProblems(child: Settings, temporalPorts: TemporalClusterPorts, host: string): Promise<string[]> {
  const { sdkMetricsPort, httpPort } = child.workerObservability;
  const listeners: Array<{ name: string; host: string; port: number }> = [
    { name: 'PORT', host: child.host, port: child.port },
    ...(child.apiMetrics ? [{ name: 'API_METRICS_PORT', ...child.apiMetrics }] : []),
    ...(sdkMetricsPort === 0 ? [] : [{ name: 'WORKER_METRICS_PORT', host: child.workerObservability.host, port: sdkMetricsPort }]),
    ...(httpPort === 0 ? [] : [{ name: 'WORKER_HTTP_PORT', host: child.workerObservability.host, port: httpPort }]),
    ...(Object.keys(temporalPorts) as Array<keyof TemporalClusterPorts>).map((role) => ({
      name: `the Temporal server's ${role} port`,
      host,
      port: temporalPorts[role],
    })),
  ];
  const problems: string[] = [];
  const seen = new Map<number, string>();
  for (const listener of listeners) {
    const first = seen.get(listener.port);
    if (first !== undefined) {
      problems.push(`${listener.name} ${listener.port} is also ${first}'s: give each its own port`);
      continue;
    }
    seen.set(listener.port, listener.name);
    if (!(await isPortFree(listener.host, listener.port))) {
      problems.push(
        listener.name.startsWith('the Temporal')
          ? `${listener.name} ${listener.port} is taken on ${listener.host}: is another npm run start:cluster running? Stop it first`
          : `${listener.name} ${listener.port} is taken on ${listener.host}: set ${listener.name} to a free port, or stop what holds it`,
      );
    }
  }
  return problems;
}

/** The problems the preflight found: shown as they are, without a stack (a message for whoever started it). */
export class ClusterPreflightError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`npm run start:cluster cannot start:\n  ${problems.join('\n  ')}`);
    this.name = 'ClusterPreflightError';
  }
}
