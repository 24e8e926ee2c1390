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

const REBUILD = /^Recomputes the report rollups/;
const BASES = ['movement-events', 'parking-lot-stats', 'parking-events'];
/** The rollup indices of every level: 15 minutes, hours, UTC days (docs/rollups.md). */
const ROWS = BASES.flatMap((b) => [`rollup-${b}`, `rollup-${b}-1h`, `rollup-${b}-1d`]);
const OWN = (a: string) => a.startsWith('es:');

afterAll(removeSynthOutputs);

const domainId = (template: Template) => Object.keys(resourcesOf(template, 'AWS::OpenSearchService::Domain'))[0]!;
const grantsOf = (template: Template, fn: string) =>
  Object.fromEntries(
    statementsOfFunction(template, fn)
      .filter((s) => actionsOf([s]).some(OWN))
      .map((s) => [actionsOf([s]).join(','), resourcesOfStatement(s).sort()]),
  );

describe('the rollups of the service stack', () => {
  describe('with the default context (rollups on)', () => {
    let template: Template;
    beforeAll(() => {
      ({ template } = synthService());
    });

    it('rebuilds every minute, retried twice, with no reserved concurrency (a lease keeps runs apart)', () => {
      const fn = functionId(template, REBUILD);
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fn, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 2 } })],
      });
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: Match.stringLikeRegexp('^Recomputes the report rollups'),
        ReservedConcurrentExecutions: Match.absent(),
      });
    });

    it('lets the rebuild read the monthly indices and write only the rollup and bookkeeping indices', () => {
      const domain = `${domainId(template)}.Arn`;
      const at = (paths: string[]) => paths.map((p) => `${domain}/${p}`).sort();
      expect(grantsOf(template, functionId(template, REBUILD))).toEqual({
        'es:ESHttpHead': at(BASES.map((b) => `${b}-*`)),
        'es:ESHttpPost': at([
          ...BASES.flatMap((b) => [`${b}-*/_search`, `${b}-*/_refresh`]),
          ...ROWS.flatMap((r) => [`${r}/_delete_by_query`, `${r}/_refresh`]),
          'rollup-dirty/_search',
        ]),
        'es:ESHttpPut': at([
          ...ROWS.map((r) => `${r}/_bulk`),
          'rollup-dirty/_bulk',
          'rollup-dirty/_doc/ready:*',
          'rollup-dirty/_doc/lease:rebuild',
        ]),
        'es:ESHttpDelete,es:ESHttpGet': at(['rollup-dirty/_doc/lease:rebuild']),
      });
    });

    it('raises an alarm, naming its runbook, when a run fails after its retries', () => {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(template, REBUILD) } }],
        AlarmDescription: Match.stringLikeRegexp('docs/runbooks\\.md#rollups-behind'),
      });
    });

    it('tells the report functions to read rollups, and lets ingest mark grains', () => {
      const domain = `${domainId(template)}.Arn`;
      const query = functionId(template, /^POST \/reports:query$/);
      template.hasResourceProperties('AWS::Lambda::Function', {
        Description: 'POST /reports:query',
        Environment: { Variables: Match.objectLike({ REPORT_ROLLUPS: 'on' }) },
      });
      expect(grantsOf(template, query)['es:ESHttpPost']).toEqual(
        expect.arrayContaining([
          `${domain}/rollup-movement-events/_search`,
          `${domain}/rollup-movement-events-1d/_search`,
          `${domain}/rollup-dirty/_search`,
        ]),
      );
      expect(grantsOf(template, functionId(template, /^POST \/ingest\//))['es:ESHttpPut']).toEqual(
        expect.arrayContaining([`${domain}/rollup-dirty/_bulk`]),
      );
    });
  });

  describe('with rollups false', () => {
    let template: Template;
    beforeAll(() => {
      ({ template } = synthService({ context: { rollups: false } }));
    });

    it('has no rebuild function and no report function reads rollups', () => {
      expect(() => functionId(template, REBUILD)).toThrow();
      const variables = Object.values(resourcesOf(template, 'AWS::Lambda::Function')).map((f) =>
        JSON.stringify((f.Properties as { Environment?: unknown }).Environment ?? {}),
      );
      expect(variables.filter((v) => v.includes('REPORT_ROLLUPS'))).toEqual([]);
    });
  });
});
