import { CfnResource, type IAspect } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** A checkov check this stack does not follow, and why. */
export interface CheckovJustification {
  readonly id: string;
  readonly comment: string;
}

/**
 * Why the stack does not follow each checkov check it fails, by resource type: the template carries
 * them as checkov's `Metadata.checkov.skip`
 * (https://www.checkov.io/2.Basics/Suppressing%20and%20Skipping%20Policies.html), so a checkov run reports them as
 * skipped with the reason instead of failed. One table, next to the cdk-nag acknowledgements made in each construct;
 * test/unit/infra/checkov.test.ts runs checkov over the synthesized template and expects no failed check.
 */
export const CHECKOV_JUSTIFICATIONS: Readonly<Record<string, readonly CheckovJustification[]>> = {
  'AWS::Lambda::Function': [
    {
      id: 'CKV_AWS_115',
      comment:
        'Reserved concurrency is opt-in per stage (queryReservedConcurrency, sliceWorkerReservedConcurrency): Lambda keeps 100 executions of an account unreserved and new accounts have fewer, so a default reservation fails their first deploy. The report route is throttled at API Gateway instead.',
    },
    {
      id: 'CKV_AWS_116',
      comment:
        'Invoked synchronously (API Gateway, Step Functions, CloudFormation), where the caller gets the error; the one asynchronous function, the occupancy refresh, sends failures to an on-failure destination and its EventBridge target has a dead-letter queue; the webhook delivery function reads an SQS queue whose own dead-letter queue takes the messages it fails.',
    },
    {
      id: 'CKV_AWS_117',
      comment:
        'Nothing of the service is in a VPC: the domain takes SigV4-signed HTTPS, and DynamoDB, S3 and Step Functions are public AWS endpoints; a VPC would add NAT gateways or endpoints and no protection.',
    },
    {
      id: 'CKV_AWS_173',
      comment:
        'The variables hold names, ARNs and endpoints, no secrets; Lambda encrypts them at rest with an AWS managed key.',
    },
  ],
  'AWS::Logs::LogGroup': [
    {
      id: 'CKV_AWS_158',
      comment:
        'CloudWatch Logs encrypts every log group at rest; the logs hold no credentials or tokens, and a customer managed key would add cost and key administration only.',
    },
  ],
  'AWS::DynamoDB::Table': [
    {
      id: 'CKV_AWS_119',
      comment:
        'Encrypted at rest with the AWS managed key; locations, sensor groups and occupancy counts need no key of their own.',
    },
  ],
  'AWS::S3::Bucket': [
    {
      id: 'CKV_AWS_18',
      comment:
        'Transient slice results that expire after one day, written and read only by two functions whose calls are traced and logged.',
    },
    {
      id: 'CKV_AWS_21',
      comment: 'Transient slice results that expire after one day: there is no history worth versioning.',
    },
  ],
  'AWS::SNS::Topic': [
    {
      id: 'CKV_AWS_26',
      comment:
        'Alarm notifications carry no data; CloudWatch alarms cannot publish to a topic encrypted with the AWS managed SNS key, so encryption would need a customer managed key with a policy for CloudWatch.',
    },
  ],
  'AWS::SQS::Queue': [
    {
      id: 'CKV_AWS_27',
      comment: 'Encrypted with SQS-managed keys (SqsManagedSseEnabled), which this check does not recognise.',
    },
  ],
  'AWS::CloudFront::Distribution': [
    {
      id: 'CKV_AWS_68',
      comment:
        'The explorer distribution serves static files and forwards to the API, which authorizes every call (JWT) and is throttled; a web ACL (which must live in us-east-1) can be attached per deployment.',
    },
    {
      id: 'CKV_AWS_86',
      comment:
        'The static files hold no data; every data request goes on to the API, whose access log records it with the caller.',
    },
    {
      id: 'CKV_AWS_174',
      comment:
        'The default *.cloudfront.net certificate fixes the minimum TLS version; a custom domain with its own certificate (and TLSv1.2_2021) is a per-deployment choice.',
    },
  ],
  'AWS::OpenSearchService::Domain': [
    {
      id: 'CKV_AWS_317',
      comment:
        "Audit logs need fine-grained access control (the security plugin); the domain is reached only by SigV4-signed requests of the functions' roles, each allowed named index patterns, and its slow and error logs go to CloudWatch.",
    },
  ],
};

/**
 * Adds the justifications of its type to every CloudFormation resource (`Aspects.of(stack).add(new
 * CheckovJustifications())`).
 */
export class CheckovJustifications implements IAspect {
  constructor(
    private readonly table: Readonly<Record<string, readonly CheckovJustification[]>> = CHECKOV_JUSTIFICATIONS,
  ) {}

  visit(node: IConstruct): void {
    if (!(node instanceof CfnResource)) return;
    const skip = this.table[node.cfnResourceType];
    if (skip) node.addMetadata('checkov', { skip: skip.map(({ id, comment }) => ({ id, comment })) });
  }
}
