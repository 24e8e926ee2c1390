import { Match, type Template } from 'aws-cdk-lib/assertions';
import {
  actionsOf,
  functionId,
  removeSynthOutputs,
  resourcesOf,
  resourcesOfStatement,
  statementsOfFunction,
  synthService,
} from './synth';

const RETENTION = /^Deletes the monthly report indices older than/;
const INDEX_PATTERNS = ['movement-events-*', 'parking-lot-stats-*', 'parking-events-*'];
const OWN = (a: string) => a.startsWith('es:');

afterAll(removeSynthOutputs);

const domainId = (template: Template) => Object.keys(resourcesOf(template, 'AWS::OpenSearchService::Domain'))[0]!;

describe('the retention of the service stack', () => {
  describe('with the default context (25 months)', () => {
    let template: Template;
    beforeAll(() => {
      ({ template } = synthService());
    });

    it('runs the retention function every day at 03:15 UTC', () => {
      const fn = functionId(template, RETENTION);
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'cron(15 3 * * ? *)',
        State: 'ENABLED',
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fn, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 2 } })],
      });
    });

    it('tells the function the retention, the domain and the index prefix', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: Match.stringLikeRegexp('older than 25 months'),
        Environment: {
          Variables: Match.objectLike({
            RETENTION_MONTHS: '25',
            OPENSEARCH_AUTH: 'sigv4',
            OPENSEARCH_INDEX_PREFIX: '',
            OPENSEARCH_URL: Match.anyValue(),
          }),
        },
      });
    });

    it('lets the function list the monthly indices and DELETE them, and mark their rollup grains, on those indices only', () => {
      const statements = statementsOfFunction(template, functionId(template, RETENTION)).filter((s) =>
        actionsOf([s]).some(OWN),
      );
      const domain = `${domainId(template)}.Arn`;
      const grants = Object.fromEntries(
        statements.map((s) => [actionsOf([s]).join(','), resourcesOfStatement(s).sort()]),
      );
      const rows = INDEX_PATTERNS.map((p) => `rollup-${p.slice(0, -2)}`);
      expect(grants).toEqual({
        'es:ESHttpDelete': INDEX_PATTERNS.map((p) => `${domain}/${p}`).sort(),
        'es:ESHttpGet': INDEX_PATTERNS.map((p) => `${domain}/_cat/indices/${p}`).sort(),
        // The rollups' grains of what it deletes (docs/rollups.md): read, then marked.
        'es:ESHttpHead': [...INDEX_PATTERNS, ...rows].map((p) => `${domain}/${p}`).sort(),
        'es:ESHttpPost': [...INDEX_PATTERNS, ...rows]
          .flatMap((p) => [`${domain}/${p}/_search`, `${domain}/${p}/_refresh`])
          .sort(),
        'es:ESHttpPut': [`${domain}/rollup-dirty/_bulk`],
      });
    });

    it('raises an alarm, naming its runbook, when a run fails after its retries', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(template, RETENTION) } }],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmDescription: Match.stringLikeRegexp('docs/runbooks\\.md#retention-failed'),
      });
    });
  });

  describe('with retentionMonths 0 (off)', () => {
    let template: Template;
    beforeAll(() => {
      ({ template } = synthService({ context: { retentionMonths: 0 } }));
    });

    it('has no retention function and no retention schedule (the refresh and the snapshot stay), and tells the setup to remove the ISM policy', () => {
      expect(() => functionId(template, RETENTION)).toThrow();
      // The other schedules stay: the occupancy refresh, the daily snapshot (lib/backups.ts), the rollups' rebuild
      // (lib/rollups.ts).
      expect(
        Object.values(resourcesOf(template, 'AWS::Events::Rule'))
          .map((r) => (r.Properties as { ScheduleExpression: string }).ScheduleExpression)
          .sort(),
      ).toEqual(['cron(0/5 * * * ? *)', 'cron(15 4 * * ? *)', 'rate(1 minute)']);
      template.hasResourceProperties('Custom::OpenSearchIndexTemplates', { RetentionMonths: '0' });
    });
  });
});
