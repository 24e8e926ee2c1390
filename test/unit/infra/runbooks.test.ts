import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../lib/stack';
import { runbookOf } from '../../../lib/runbooks';
import { removeSynthOutputs, resourcesOf, synthService } from './synth';

/** GitHub's anchor of a Markdown heading: lowercase, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

const anchorsIn = (markdown: string): Set<string> =>
  new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));

afterAll(removeSynthOutputs);

describe('runbooks', () => {
  const anchors = anchorsIn(readFileSync(join(PROJECT_ROOT, 'docs/runbooks.md'), 'utf8'));

  it('every alarm of the stack names a section of docs/runbooks.md that exists', () => {
    const { template } = synthService({ context: { stage: 'prod', alarmEmail: 'ops@example.org' } });
    const alarms = Object.entries(resourcesOf(template, 'AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(20);
    const missing = alarms
      .map(([id, alarm]) => {
        const description = String((alarm.Properties as { AlarmDescription?: string }).AlarmDescription ?? '');
        const anchor = /docs\/runbooks\.md#([a-z0-9-]+)/.exec(description)?.[1];
        return anchor && anchors.has(anchor) ? undefined : `${id}: ${description || '(no description)'}`;
      })
      .filter(Boolean);
    expect(missing).toEqual([]);
  });

  it('reads headings as GitHub anchors them', () => {
    expect(anchorOf('Domain red')).toBe('domain-red');
    expect(anchorOf('API 5xx (server errors)')).toBe('api-5xx-server-errors');
    expect([...anchorsIn('# Top\n\n## Restore OpenSearch\ntext ## not a heading\n')]).toEqual([
      'top',
      'restore-opensearch',
    ]);
  });

  it('refuses an alarm no rule covers, so none ships without a runbook', () => {
    expect(() => runbookOf('SomethingNew')).toThrow(/no runbook/);
    expect(runbookOf('QueryReportErrors')).toBe('docs/runbooks.md#function-errors');
  });
});
