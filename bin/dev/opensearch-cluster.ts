/**
 * A throw-away OpenSearch cluster of several nodes on this machine, from the same cached distribution
 * as the single test node (./opensearch-node.ts): each node a JVM of its own with its own home, data,
 * HTTP and transport ports, all on 127.0.0.1 (development mode: no bootstrap checks), discovering
 * each other through the transport ports. Every node is master-eligible and holds data, so a cluster
 * of 3 keeps a majority (2) when one dies: the fault suite (test/cluster) kills one with SIGKILL, as a
 * crash or an instance lost, and starts it again on the same data.
 */
import { freePorts, NodeProcess, pollHealth, prepareNodeHome, type StartOpenSearchOptions } from './opensearch-node';

/** Options of {@link startOpenSearchCluster}; all optional. */
export interface StartClusterOptions
  extends Pick<StartOpenSearchOptions, 'maxBuckets' | 'keepData' | 'startTimeoutMs' | 'settings'> {
  /** How many nodes. @default 3 */
  readonly nodes?: number;
  /** JVM heap of each node (-Xms and -Xmx). @default '512m' (the machine is shared: 3 × 512 MB). */
  readonly heap?: string;
}

/** One node of a running cluster. */
export interface ClusterNode {
  /** `node.name`, e.g. `lrs-node-0`. */
  readonly name: string;
  /** Its HTTP address, e.g. `http://127.0.0.1:39211`. */
  readonly url: string;
  readonly logFile: string;
  /** Whether its JVM runs. */
  readonly running: boolean;
  /** Kills the JVM at once (SIGKILL: no shutdown, no flush), as a crash would; resolves once it has exited. */
  kill(): Promise<void>;
  /** Starts it again on the same data and ports; resolves once the cluster, through it, has every node again. */
  restart(): Promise<void>;
}

/** A running cluster, as returned by {@link startOpenSearchCluster}. */
export interface OpenSearchCluster {
  readonly nodes: readonly ClusterNode[];
  /** Every node's URL, in node order: what a client is given (`--opensearch-url a,b,c`). */
  readonly urls: readonly string[];
  /** Milliseconds from spawning the JVMs until every node answered with the whole cluster formed. */
  readonly startupMs: number;
  /** Stops every node and removes their run directories. Idempotent. */
  stop(): Promise<void>;
}

const CLUSTER_NAME = 'lrs-cluster';

/**
 * Starts `nodes` OpenSearch nodes that form one cluster and resolves once every node answers and
 * the cluster has all of them (`wait_for_nodes`). Fails with the first node's log tail if one exits
 * or the cluster does not form in time; the nodes started are stopped then.
 */
export async function startOpenSearchCluster(opts: StartClusterOptions = {}): Promise<OpenSearchCluster> {
  const count = opts.nodes ?? 3;
  if (!Number.isInteger(count) || count < 1) throw new Error(`a cluster needs 1 or more nodes, got ${count}`);
  const ports = await freePorts(2 * count);
  const names = Array.from({ length: count }, (_, i) => `lrs-node-${i}`);
  const transport = names.map((_, i) => `127.0.0.1:${ports[2 * i + 1]}`);
  const timeoutMs = opts.startTimeoutMs ?? 180_000;
  const processes = names.map(
    (name, i) =>
      new NodeProcess(
        prepareNodeHome({ ...opts, httpPort: ports[2 * i] as number, transportPort: ports[2 * i + 1] as number }),
        {
          'cluster.name': CLUSTER_NAME,
          'node.name': name,
          'discovery.seed_hosts': transport.join(','),
          // Only read when the cluster first forms (its state is on disk afterwards, so a restart ignores it).
          'cluster.initial_cluster_manager_nodes': names.join(','),
          ...opts.settings,
        },
      ),
  );
  const formed = (url: string, failure: () => string | undefined) => waitForCluster(url, count, timeoutMs, failure);
  const stop = () => Promise.all(processes.map((p) => p.stop())).then(() => undefined);
  const started = Date.now();
  const launched = await Promise.allSettled(processes.map((p) => p.launch(timeoutMs, formed)));
  const failed = launched.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const startupMs = Date.now() - started;
  const nodes = processes.map(
    (p, i): ClusterNode => ({
      name: names[i] as string,
      url: p.home.url,
      logFile: p.home.logFile,
      get running() {
        return p.running;
      },
      kill: () => p.kill('SIGKILL'),
      restart: async () => {
        await p.launch(timeoutMs, formed);
      },
    }),
  );
  return { nodes, urls: nodes.map((n) => n.url), startupMs, stop };
}

/**
 * Waits until the node at `url` answers and its cluster has `count` nodes (`_cluster/health` with
 * `wait_for_nodes`; a node that has not joined yet answers 503 or a timeout, polled again).
 */
export async function waitForCluster(
  url: string,
  count: number,
  timeoutMs: number,
  failure?: () => string | undefined,
): Promise<void> {
  const lastProblem = await pollHealth(
    `${url}/_cluster/health?wait_for_nodes=${count}&timeout=2s`,
    async (res) => {
      // A node that has not found the others has no cluster manager yet: 503 until then.
      const body = (await res.json()) as { number_of_nodes?: number; timed_out?: boolean };
      if (res.ok && !body.timed_out && body.number_of_nodes === count) return undefined;
      return res.ok ? `${body.number_of_nodes ?? 0} of ${count} nodes` : `HTTP ${res.status}`;
    },
    { timeoutMs, failure, fetchTimeoutMs: 10_000, everyMs: 500 },
  );
  if (lastProblem !== undefined)
    throw new Error(`the cluster at ${url} did not have ${count} nodes within ${timeoutMs} ms (${lastProblem})`);
}
