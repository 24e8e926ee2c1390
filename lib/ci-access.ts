import { Aws, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import {
  type IOidcProvider,
  OidcProviderNative,
  OpenIdConnectPrincipal,
  PolicyStatement,
  Role,
} from 'aws-cdk-lib/aws-iam';
import type { Construct, Node } from 'constructs';

/** GitHub's OIDC issuer (https://docs.github.com/en/actions/reference/security/oidc). */
export const GITHUB_OIDC_HOST = 'token.actions.githubusercontent.com';
/** The audience aws-actions/configure-aws-credentials asks GitHub to put in the token. */
export const STS_AUDIENCE = 'sts.amazonaws.com';
/** The qualifier `cdk bootstrap` uses unless told otherwise (it names the bootstrap roles). */
export const DEFAULT_BOOTSTRAP_QUALIFIER = 'hnb659fds';

/** The bootstrap roles the CDK CLI assumes: deploy (CloudFormation), file publishing (S3 assets), lookup (reads). */
export type BootstrapRole = 'deploy' | 'file-publishing' | 'lookup';

export interface CiAccessProps extends StackProps {
  /** The repository whose workflows may assume the roles, `owner/name` exactly as GitHub spells it. */
  readonly repository: string;
  /**
   * GitHub environments whose jobs may deploy; the deploy role trusts exactly
   * `repo:<repository>:environment:<name>` for each.
   * @default ['dev', 'prod']
   */
  readonly deployEnvironments?: readonly string[];
  /**
   * The branch whose pushes may run the read-only diff (besides pull requests of the repository).
   * @default 'main'
   */
  readonly branch?: string;
  /**
   * Import the account's GitHub OIDC provider instead of creating it (an account holds one per URL).
   * @default false
   */
  readonly existingOidcProvider?: boolean;
  /** @default DEFAULT_BOOTSTRAP_QUALIFIER */
  readonly bootstrapQualifier?: string;
}

/**
 * Keyless access for GitHub Actions: GitHub's OIDC provider and two roles that workflows of one
 * repository assume with a short-lived token (no access keys anywhere). Each role may do one thing
 * only, assume some of the CDK bootstrap roles of this account and region, which carry the actual
 * permissions:
 * - the deploy role, for jobs of the deploy environments: deploy, file-publishing and lookup roles;
 * - the diff role, for pull requests and pushes to the branch: the lookup role only (read-only,
 *   `cdk diff --method=template`).
 */
export class CiAccessStack extends Stack {
  public readonly provider: IOidcProvider;
  public readonly deployRole: Role;
  public readonly diffRole: Role;

  constructor(scope: Construct, id: string, props: CiAccessProps) {
    super(scope, id, props);
    const environments = props.deployEnvironments ?? ['dev', 'prod'];
    const branch = props.branch ?? 'main';
    const qualifier = props.bootstrapQualifier ?? DEFAULT_BOOTSTRAP_QUALIFIER;
    const subject = (tail: string) => `repo:${props.repository}:${tail}`;

    this.provider = props.existingOidcProvider
      ? OidcProviderNative.fromOidcProviderArn(
          this,
          'GitHubOidc',
          `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:oidc-provider/${GITHUB_OIDC_HOST}`,
        )
      : new OidcProviderNative(this, 'GitHubOidc', { url: `https://${GITHUB_OIDC_HOST}`, clientIds: [STS_AUDIENCE] });

    // StringEquals on `sub` (a list is any of its values), never StringLike: no wildcard subject.
    const trustedBy = (subjects: string[]) =>
      new OpenIdConnectPrincipal(this.provider, {
        StringEquals: { [`${GITHUB_OIDC_HOST}:aud`]: STS_AUDIENCE, [`${GITHUB_OIDC_HOST}:sub`]: subjects },
      });
    const bootstrapRoleArn = (role: BootstrapRole) =>
      `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/cdk-${qualifier}-${role}-role-${Aws.ACCOUNT_ID}-${Aws.REGION}`;
    const mayAssume = (role: Role, targets: BootstrapRole[]) =>
      role.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['sts:AssumeRole'], resources: targets.map(bootstrapRoleArn) }),
      );

    this.deployRole = new Role(this, 'DeployRole', {
      description: `GitHub Actions deploys of ${props.repository} (environments ${environments.join(', ')}) via the CDK bootstrap roles`,
      assumedBy: trustedBy(environments.map((e) => subject(`environment:${e}`))),
      // The CLI keeps refreshing its bootstrap-role sessions from this one; a first deploy (the
      // OpenSearch domain) can outlast the default hour.
      maxSessionDuration: Duration.hours(2),
    });
    mayAssume(this.deployRole, ['deploy', 'file-publishing', 'lookup']);

    this.diffRole = new Role(this, 'DiffRole', {
      description: `GitHub Actions read-only diffs of ${props.repository} (pull requests, pushes to ${branch}) via the CDK lookup role`,
      assumedBy: trustedBy([subject('pull_request'), subject(`ref:refs/heads/${branch}`)]),
    });
    mayAssume(this.diffRole, ['lookup']);

    new CfnOutput(this, 'DeployRoleArn', {
      value: this.deployRole.roleArn,
      description: 'Repository variable AWS_DEPLOY_ROLE_ARN',
    });
    new CfnOutput(this, 'DiffRoleArn', {
      value: this.diffRole.roleArn,
      description: 'Repository variable AWS_DIFF_ROLE_ARN',
    });
    new CfnOutput(this, 'Region', { value: this.region, description: 'Repository variable AWS_REGION' });
  }
}

/** What bin/ci-access.ts reads from CDK context (`-c githubRepo=owner/name`, …). */
export interface CiAccessConfig {
  readonly repository: string;
  readonly deployEnvironments: readonly string[];
  readonly branch: string;
  readonly existingOidcProvider: boolean;
  readonly bootstrapQualifier: string;
}

type Ctx = Pick<Node, 'tryGetContext'>;

const contextText = (node: Ctx, key: string): string | undefined => {
  const v: unknown = node.tryGetContext(key);
  const s = v === undefined || v === null ? '' : String(v).trim();
  return s === '' ? undefined : s;
};

// GitHub's own name rules, narrowed so that no IAM wildcard (* ?) or policy variable ($) can pass.
const REPOSITORY = /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/;
const ENVIRONMENT = /^[A-Za-z0-9._-]{1,255}$/;
const BRANCH = /^[A-Za-z0-9._/-]{1,255}$/;

/** Reads and checks the access stack's context; every mistake is one clear error naming the key. */
export function readCiAccessConfig(node: Ctx): CiAccessConfig {
  const repository = contextText(node, 'githubRepo');
  if (!repository)
    throw new Error(
      'Context "githubRepo" is required: -c githubRepo=<owner>/<name> (the repository whose workflows may deploy).',
    );
  if (!REPOSITORY.test(repository))
    throw new Error(`Context "githubRepo" must be <owner>/<name> (letters, digits, - . _), got "${repository}".`);
  const rawEnvironments: unknown = node.tryGetContext('githubEnvironments');
  const environments = (
    Array.isArray(rawEnvironments) ? rawEnvironments.map(String) : String(rawEnvironments ?? 'dev,prod').split(',')
  )
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (environments.length === 0)
    throw new Error('Context "githubEnvironments" must name at least one environment, e.g. dev,prod.');
  const badEnvironment = environments.find((e) => !ENVIRONMENT.test(e));
  if (badEnvironment !== undefined)
    throw new Error(
      `Context "githubEnvironments": "${badEnvironment}" is not an environment name (letters, digits, - . _).`,
    );
  const branch = contextText(node, 'githubBranch') ?? 'main';
  if (!BRANCH.test(branch))
    throw new Error(`Context "githubBranch" must be a branch name (letters, digits, - . _ /), got "${branch}".`);
  const existing = contextText(node, 'existingOidcProvider') ?? 'false';
  if (existing !== 'true' && existing !== 'false')
    throw new Error(`Context "existingOidcProvider" must be true or false, got "${existing}".`);
  const qualifier = contextText(node, 'bootstrapQualifier') ?? DEFAULT_BOOTSTRAP_QUALIFIER;
  if (!/^[a-z0-9]{1,10}$/.test(qualifier))
    throw new Error(`Context "bootstrapQualifier" must be 1 to 10 lowercase letters or digits, got "${qualifier}".`);
  return {
    repository,
    deployEnvironments: [...new Set(environments)],
    branch,
    existingOidcProvider: existing === 'true',
    bootstrapQualifier: qualifier,
  };
}
