import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newOutdir, removeSynthOutputs, synthService } from './synth';

/**
 * cfn-lint (https://github.com/aws-cloudformation/cfn-lint), AWS's own linter of CloudFormation
 * templates against the resource specification (property names and types, allowed values, instance
 * types of a service, references), over the synthesized template of each domain profile. A Python
 * tool: where it is not installed (`pip install cfn-lint`), this test says so and skips.
 */
const CFN_LINT = process.env.CFN_LINT ?? 'cfn-lint';
const available = spawnSync(CFN_LINT, ['--version'], { encoding: 'utf8' }).status === 0;

afterAll(removeSynthOutputs);

interface Finding {
  readonly Rule: { readonly Id: string };
  readonly Level: string;
  readonly Message: string;
  readonly Location: { readonly Path: readonly (string | number)[] };
}

const lint = (template: unknown): Finding[] => {
  const file = join(newOutdir(), 'template.json');
  writeFileSync(file, JSON.stringify(template));
  // Exit codes are a bit mask of the levels found; the JSON list is on stdout either way.
  const run = spawnSync(CFN_LINT, ['--format', 'json', '--regions', 'eu-central-1', '--', file], {
    encoding: 'utf8',
    timeout: 180_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.stdout.trim() === '') throw new Error(`cfn-lint gave no report: ${run.stderr}`);
  return JSON.parse(run.stdout) as Finding[];
};

/**
 * Rules passed over, each with its reason. W3005 (a DependsOn that a Ref or GetAtt enforces
 * already): CDK adds a function's role policy to DependsOn besides the role's GetAtt, on purpose
 * (the policy must exist before the function is invoked); harmless redundancy of CDK's, not ours.
 */
const IGNORED = new Set(['W3005']);

const shown = (findings: Finding[]) =>
  findings.map((f) => `${f.Level} ${f.Rule.Id} ${f.Location.Path.join('/')}: ${f.Message}`);

if (!available) console.warn(`cfn-lint (${CFN_LINT}) is not installed: the template lint is skipped`);

(available ? describe : describe.skip)('cfn-lint over the synthesized template', () => {
  it.each(['small', 'production'])('finds no error or warning in the %s profile', (profile) => {
    const { template } = synthService({ context: { stage: 'prod', openSearchProfile: profile } });
    const findings = lint(template.toJSON()).filter((f) => f.Level !== 'Informational' && !IGNORED.has(f.Rule.Id));
    expect(shown(findings)).toEqual([]);
  });

  it('finds a property the resource does not have (the lint is live)', () => {
    const { template } = synthService();
    const json = template.toJSON() as {
      Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
    };
    const domain = Object.values(json.Resources).find((r) => r.Type === 'AWS::OpenSearchService::Domain')!;
    domain.Properties.ClusterConfig = {
      ...(domain.Properties.ClusterConfig as object),
      DedicatedMasterCount: 'three',
      NoSuchSetting: true,
    };
    expect(
      lint(json)
        .filter((f) => f.Level === 'Error')
        .map((f) => f.Location.Path.slice(-1)[0]),
    ).toEqual(expect.arrayContaining(['DedicatedMasterCount', 'NoSuchSetting']));
  });
});
