import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CiAccessStack, type CiAccessProps, readCiAccessConfig } from '../../../lib/ci-access';
import { PROJECT_ROOT } from '../../../lib/stack';
import { newOutdir, removeSynthOutputs, render } from '../infra/synth';

/**
 * The keyless CI access stack: who may assume its roles (the trust policies) and what the roles may
 * do (assume CDK bootstrap roles, nothing else). Values below are written out by hand from the
 * repository acme/lrs and the default bootstrap qualifier.
 */
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML and JSON, walked freely by the assertions
type Json = Record<string, any>;

function synth(props: Partial<CiAccessProps> = {}, nag = false): Template & { outdir: string } {
  const outdir = newOutdir();
  const app = new App({ outdir });
  const stack = new CiAccessStack(app, 'CiAccess', { repository: 'acme/lrs', ...props });
  if (nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
  return Object.assign(Template.fromStack(stack), { outdir });
}

/** The cdk-nag findings (errors and warnings) of a synth's validation report; none when it has none. */
function findings(outdir: string): unknown[] {
  const file = join(outdir, 'validation-report.json');
  return existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { pluginReports: { violations: unknown[] }[] }).pluginReports.flatMap(
        (r) => r.violations,
      )
    : [];
}

afterAll(removeSynthOutputs);

const byDescription = (template: Template, start: string): [string, Json] => {
  const found = Object.entries(template.findResources('AWS::IAM::Role') as Record<string, Json>).filter(([, r]) =>
    String(r.Properties.Description).startsWith(start),
  );
  expect(found).toHaveLength(1);
  return found[0]!;
};
const trustOf = (role: Json): Json[] => role.Properties.AssumeRolePolicyDocument.Statement;
/** Every statement of every inline policy attached to the role, its resources rendered as text. */
const permissionsOf = (template: Template, roleId: string) =>
  Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Json>)
    .filter((p) => p.Properties.Roles.some((r: Json) => r.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Json[])
    .map((s) => ({
      Effect: s.Effect,
      Action: s.Action,
      Resource: [s.Resource].flat().map(render),
      Condition: s.Condition,
    }));

const bootstrapRole = (name: string) =>
  `arn:AWS::Partition:iam::AWS::AccountId:role/cdk-hnb659fds-${name}-role-AWS::AccountId-AWS::Region`;

describe('CiAccessStack', () => {
  const template = synth();

  it('creates GitHub’s OIDC provider for the STS audience only', () => {
    template.resourceCountIs('AWS::IAM::OIDCProvider', 1);
    template.hasResourceProperties('AWS::IAM::OIDCProvider', {
      Url: 'https://token.actions.githubusercontent.com',
      ClientIdList: ['sts.amazonaws.com'],
    });
  });

  it('trusts the deploy role to jobs of the dev and prod environments of acme/lrs only, by exact subject and audience', () => {
    const [, role] = byDescription(template, 'GitHub Actions deploys');
    const providerId = Object.keys(template.findResources('AWS::IAM::OIDCProvider'))[0];
    expect(trustOf(role)).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRoleWithWebIdentity',
        Principal: { Federated: { Ref: providerId } },
        Condition: {
          StringEquals: {
            'token.actions.githubusercontent.com:aud': 'sts.amazonaws.com',
            'token.actions.githubusercontent.com:sub': [
              'repo:acme/lrs:environment:dev',
              'repo:acme/lrs:environment:prod',
            ],
          },
        },
      },
    ]);
  });

  it('trusts the diff role to pull requests of acme/lrs and pushes to its main branch only', () => {
    const [, role] = byDescription(template, 'GitHub Actions read-only diffs');
    expect(trustOf(role)).toHaveLength(1);
    expect(trustOf(role)[0]!.Condition).toEqual({
      StringEquals: {
        'token.actions.githubusercontent.com:aud': 'sts.amazonaws.com',
        'token.actions.githubusercontent.com:sub': ['repo:acme/lrs:pull_request', 'repo:acme/lrs:ref:refs/heads/main'],
      },
    });
  });

  it('has no wildcard subject and no pattern condition in any trust policy', () => {
    for (const role of Object.values(template.findResources('AWS::IAM::Role') as Record<string, Json>)) {
      for (const statement of trustOf(role)) {
        expect(Object.keys(statement.Condition)).toEqual(['StringEquals']);
        for (const subject of [statement.Condition.StringEquals['token.actions.githubusercontent.com:sub']].flat())
          expect(subject).not.toMatch(/[*?$]/);
      }
    }
  });

  it('lets the deploy role assume the deploy, file-publishing and lookup bootstrap roles and nothing else', () => {
    const [id, role] = byDescription(template, 'GitHub Actions deploys');
    expect(permissionsOf(template, id)).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Resource: [bootstrapRole('deploy'), bootstrapRole('file-publishing'), bootstrapRole('lookup')],
        Condition: undefined,
      },
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role.Properties.Policies).toBeUndefined();
  });

  it('lets the diff role assume the lookup role only (read-only), nothing else', () => {
    const [id, role] = byDescription(template, 'GitHub Actions read-only diffs');
    expect(permissionsOf(template, id)).toEqual([
      { Effect: 'Allow', Action: 'sts:AssumeRole', Resource: [bootstrapRole('lookup')], Condition: undefined },
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it('creates nothing besides the provider, the two roles and their two policies', () => {
    const types = Object.values(template.toJSON().Resources as Record<string, Json>)
      .map((r) => r.Type)
      .sort();
    expect(types).toEqual([
      'AWS::IAM::OIDCProvider',
      'AWS::IAM::Policy',
      'AWS::IAM::Policy',
      'AWS::IAM::Role',
      'AWS::IAM::Role',
    ]);
  });

  it('imports the account’s existing provider when asked, trusting it by its fixed ARN', () => {
    const imported = synth({ existingOidcProvider: true });
    imported.resourceCountIs('AWS::IAM::OIDCProvider', 0);
    const [, role] = byDescription(imported, 'GitHub Actions deploys');
    expect(render(trustOf(role)[0]!.Principal.Federated)).toBe(
      'arn:AWS::Partition:iam::AWS::AccountId:oidc-provider/token.actions.githubusercontent.com',
    );
  });

  it('follows other environments, branch and bootstrap qualifier', () => {
    const other = synth({
      repository: 'Org-1/svc.api',
      deployEnvironments: ['staging'],
      branch: 'release',
      bootstrapQualifier: 'abc123',
    });
    const [deployId, deploy] = byDescription(other, 'GitHub Actions deploys');
    const [, diff] = byDescription(other, 'GitHub Actions read-only diffs');
    expect(trustOf(deploy)[0]!.Condition.StringEquals['token.actions.githubusercontent.com:sub']).toEqual([
      'repo:Org-1/svc.api:environment:staging',
    ]);
    expect(trustOf(diff)[0]!.Condition.StringEquals['token.actions.githubusercontent.com:sub']).toEqual([
      'repo:Org-1/svc.api:pull_request',
      'repo:Org-1/svc.api:ref:refs/heads/release',
    ]);
    expect(permissionsOf(other, deployId)[0]!.Resource[0]).toBe(
      'arn:AWS::Partition:iam::AWS::AccountId:role/cdk-abc123-deploy-role-AWS::AccountId-AWS::Region',
    );
  });

  it('outputs the values the repository variables need', () => {
    template.hasOutput('DeployRoleArn', { Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DeployRole'), 'Arn'] } });
    template.hasOutput('DiffRoleArn', { Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DiffRole'), 'Arn'] } });
    template.hasOutput('Region', { Value: { Ref: 'AWS::Region' } });
  });

  it('has no cdk-nag AwsSolutions finding, with a new or an imported provider', () => {
    expect(findings(synth({}, true).outdir)).toEqual([]);
    expect(findings(synth({ existingOidcProvider: true }, true).outdir)).toEqual([]);
  });
});

describe('readCiAccessConfig', () => {
  const read = (context: Record<string, unknown>) => readCiAccessConfig(new App({ context }).node);

  it('reads the repository and defaults the rest', () => {
    expect(read({ githubRepo: 'acme/lrs' })).toEqual({
      repository: 'acme/lrs',
      deployEnvironments: ['dev', 'prod'],
      branch: 'main',
      existingOidcProvider: false,
      bootstrapQualifier: 'hnb659fds',
    });
    expect(
      read({ githubRepo: 'acme/lrs', githubEnvironments: ' dev , staging,dev', existingOidcProvider: 'true' }),
    ).toMatchObject({ deployEnvironments: ['dev', 'staging'], existingOidcProvider: true });
  });

  it.each([
    [{}, 'Context "githubRepo" is required: -c githubRepo=<owner>/<name>'],
    [{ githubRepo: 'acme/*' }, 'Context "githubRepo" must be <owner>/<name> (letters, digits, - . _), got "acme/*".'],
    [{ githubRepo: 'acme' }, 'Context "githubRepo" must be <owner>/<name>'],
    [
      { githubRepo: 'acme/lrs', githubEnvironments: 'dev,prod*' },
      'Context "githubEnvironments": "prod*" is not an environment name',
    ],
    [
      { githubRepo: 'acme/lrs', githubEnvironments: ' , ' },
      'Context "githubEnvironments" must name at least one environment',
    ],
    [{ githubRepo: 'acme/lrs', githubBranch: 'release/*' }, 'Context "githubBranch" must be a branch name'],
    [
      { githubRepo: 'acme/lrs', existingOidcProvider: 'yes' },
      'Context "existingOidcProvider" must be true or false, got "yes".',
    ],
  ])('refuses %j with a message naming the key', (context, message) => {
    expect(() => read(context)).toThrow(message);
  });
});

describe('npx cdk synth -a "npx tsx bin/ci-access.ts"', () => {
  it('synthesizes the access app as documented, cdk-nag included, and names the missing repository otherwise', () => {
    const outdir = newOutdir();
    const cdk = (...args: string[]) =>
      spawnSync('npx', ['cdk', 'synth', '-a', 'npx tsx bin/ci-access.ts', '--quiet', '--output', outdir, ...args], {
        cwd: PROJECT_ROOT,
        encoding: 'utf8',
        timeout: 300_000,
      });

    const ok = cdk('-c', 'githubRepo=acme/lrs');
    expect({ status: ok.status, stderr: ok.stderr.split('\n').filter((l) => /Error|AwsSolutions/.test(l)) }).toEqual({
      status: 0,
      stderr: [],
    });
    expect(findings(outdir)).toEqual([]);
    const synthesized = JSON.parse(readFileSync(join(outdir, 'LocationReporting-CiAccess.template.json'), 'utf8'));
    expect(
      Object.values(synthesized.Resources as Record<string, Json>).filter((r) => r.Type === 'AWS::IAM::Role'),
    ).toHaveLength(2);

    const missing = cdk();
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain('Context "githubRepo" is required: -c githubRepo=<owner>/<name>');
  });
});
