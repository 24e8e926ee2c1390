import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { newOutdir, removeSynthOutputs, synthService } from './synth';

/**
 * checkov (https://www.checkov.io), a second policy scanner beside cdk-nag, over the synthesized
 * template: every check the stack does not follow must carry its reason (lib/checkov.ts), so that
 * checkov reports it as skipped, not failed. checkov is a Python tool: `.ci/run` installs it into
 * the cache (`~/.cache/lrs/checkov`); where it is not installed, this test says so and skips.
 */
const CHECKOV =
  [
    process.env.CHECKOV,
    join(process.env.LRS_CACHE_DIR ?? join(homedir(), '.cache', 'lrs'), 'checkov', 'bin', 'checkov'),
  ]
    .filter((p): p is string => !!p)
    .find((p) => existsSync(p)) ?? (spawnSync('checkov', ['--version']).status === 0 ? 'checkov' : undefined);

interface CheckovReport {
  readonly results: {
    readonly failed_checks: { check_id: string; resource: string }[];
    readonly skipped_checks: { check_id: string; resource: string; check_result: { suppress_comment?: string } }[];
  };
}

afterAll(removeSynthOutputs);

const scan = (template: unknown): CheckovReport => {
  const file = join(newOutdir(), 'template.json');
  writeFileSync(file, JSON.stringify(template));
  // checkov exits 1 when a check fails; the JSON report is on stdout either way. It tries to fetch
  // guidelines from a Prisma Cloud API at start, which this network refuses (a logged warning).
  const run = spawnSync(CHECKOV!, ['-f', file, '--framework', 'cloudformation', '--compact', '-o', 'json'], {
    encoding: 'utf8',
    timeout: 180_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  return JSON.parse(run.stdout) as CheckovReport;
};

(CHECKOV ? describe : describe.skip)('checkov over the synthesized template', () => {
  it('finds no check failed in the production profile: every finding is justified in lib/checkov.ts', () => {
    const { template } = synthService({ context: { stage: 'prod', openSearchProfile: 'production' } });
    const report = scan(template.toJSON());
    expect(report.results.failed_checks.map((c) => `${c.check_id} ${c.resource}`)).toEqual([]);
    expect(report.results.skipped_checks.length).toBeGreaterThan(0);
    for (const skipped of report.results.skipped_checks)
      expect(skipped.check_result.suppress_comment?.length ?? 0).toBeGreaterThan(40);
  });

  it('fails a template without the justifications (the scan is live)', () => {
    const { template } = synthService();
    const bare = JSON.parse(
      JSON.stringify(template.toJSON(), (key, value: unknown) => (key === 'checkov' ? undefined : value)),
    ) as unknown;
    expect(scan(bare).results.failed_checks.length).toBeGreaterThan(0);
  });
});

if (!CHECKOV) {
  test.todo(
    'checkov is not installed: `python3 -m venv ~/.cache/lrs/checkov && ~/.cache/lrs/checkov/bin/pip install checkov` (as .ci/run does) to scan the template',
  );
}
