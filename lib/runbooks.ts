/**
 * Which section of docs/runbooks.md each alarm's description names, by the alarm's construct id.
 * The first rule that matches wins; an alarm without one fails the synth, so a new alarm cannot ship
 * without a runbook (test/unit/infra/runbooks.test.ts checks every anchor exists in the file).
 */
const RULES: readonly (readonly [RegExp, string])[] = [
  [/^Api5xx/, 'api-5xx'],
  [/^ApiLatency/, 'api-latency'],
  [/^(Api|Ingest)Throttled$/, 'api-throttled'],
  [/^Ingest.+Rejected$/, 'ingest-rejected'],
  [/^TakeSnapshotErrors$/, 'snapshot-failed'],
  [/^ApplyRetentionErrors$/, 'retention-failed'],
  [/^RebuildRollupsErrors$/, 'rollups-behind'],
  [/^Refresh/, 'refresh-failures'],
  [/^SplitFailures$/, 'split-failures'],
  [/^WebhookDeadLetters$/, 'webhook-dead-letters'],
  [/^DomainRed$/, 'domain-red'],
  [/^DomainWritesBlocked$/, 'domain-writes-blocked'],
  [/^DomainJvmPressure$/, 'domain-jvm-pressure'],
  [/^DomainCpu$/, 'domain-cpu'],
  [/^DomainSearchRejected$/, 'domain-search-rejected'],
  [/^DomainLowStorage$/, 'domain-low-storage'],
  [/Errors$/, 'function-errors'],
  [/Throttles$/, 'function-throttles'],
];

/** The runbook file, relative to the repository root, as alarm descriptions cite it. */
export const RUNBOOKS_FILE = 'docs/runbooks.md';

/** `docs/runbooks.md#<anchor>` for an alarm id; throws for an alarm no rule covers. */
export function runbookOf(alarmId: string): string {
  const rule = RULES.find(([pattern]) => pattern.test(alarmId));
  if (!rule)
    throw new Error(
      `Alarm ${alarmId} has no runbook: add a rule to lib/runbooks.ts and a section to ${RUNBOOKS_FILE}.`,
    );
  return `${RUNBOOKS_FILE}#${rule[1]}`;
}
