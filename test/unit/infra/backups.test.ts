import { Match, type Template } from 'aws-cdk-lib/assertions';
import {
  actionsOf,
  functionId,
  removeSynthOutputs,
  resourcesOf,
  resourcesOfStatement,
  statementsOfFunction,
  statementsOfRole,
  synthService,
} from './synth';

const SNAPSHOT_JOB = /^Takes the daily manual OpenSearch snapshot/;
const logicalIdOfType = (template: Template, type: string): string => {
  const ids = Object.keys(resourcesOf(template, type));
  expect(ids).toHaveLength(1);
  return ids[0]!;
};

afterAll(removeSynthOutputs);

describe('the manual snapshot repository and its daily job', () => {
  let template: Template;
  beforeAll(() => {
    ({ template } = synthService());
  });

  const snapshotBucketId = () => {
    const ids = Object.entries(resourcesOf(template, 'AWS::S3::Bucket'))
      .filter(([, r]) => JSON.stringify(r.Properties).includes('AbortIncompleteMultipartUpload'))
      .map(([id]) => id);
    expect(ids).toHaveLength(1);
    return ids[0]!;
  };

  it('keeps snapshots in an encrypted, private bucket whose lifecycle never deletes a snapshot file', () => {
    const bucket = resourcesOf(template, 'AWS::S3::Bucket')[snapshotBucketId()]!;
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LifecycleConfiguration: {
        Rules: [{ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }],
      },
    });
    expect(JSON.stringify(bucket.Properties)).not.toMatch(/Expiration/);
  });

  it('lets OpenSearch Service assume a role that reads and writes only that bucket', () => {
    const roleId = Object.entries(resourcesOf(template, 'AWS::IAM::Role')).find(([, r]) =>
      JSON.stringify(r.Properties).includes('es.amazonaws.com'),
    )![0];
    const statements = statementsOfRole(template, roleId);
    expect(actionsOf(statements)).toEqual(['s3:DeleteObject', 's3:GetObject', 's3:ListBucket', 's3:PutObject']);
    const bucket = snapshotBucketId();
    expect(statements.flatMap(resourcesOfStatement).sort()).toEqual([`${bucket}.Arn`, `${bucket}.Arn/*`]);
  });

  it('lets the job pass that role and touch only the repository’s snapshot paths', () => {
    const fn = functionId(template, SNAPSHOT_JOB);
    const own = statementsOfFunction(template, fn).filter((s) =>
      actionsOf([s]).some((a) => a.startsWith('es:') || a.startsWith('iam:')),
    );
    expect(actionsOf(own)).toEqual(['es:ESHttpDelete', 'es:ESHttpGet', 'es:ESHttpPut', 'iam:PassRole']);
    const domain = logicalIdOfType(template, 'AWS::OpenSearchService::Domain');
    expect(
      own
        .filter((s) => actionsOf([s])[0]!.startsWith('es:'))
        .flatMap(resourcesOfStatement)
        .sort(),
    ).toEqual([`${domain}.Arn/_snapshot/daily`, `${domain}.Arn/_snapshot/daily/*`]);
  });

  it('runs the job once a day, without retries, told where the repository and its role are', () => {
    const fn = functionId(template, SNAPSHOT_JOB);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(15 4 * * ? *)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fn, 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp(SNAPSHOT_JOB.source.slice(1)),
      Environment: {
        Variables: Match.objectLike({
          SNAPSHOT_REPOSITORY: 'daily',
          SNAPSHOT_BUCKET: { Ref: snapshotBucketId() },
          SNAPSHOT_ROLE_ARN: Match.anyValue(),
          SNAPSHOT_KEEP_DAYS: '30',
          OPENSEARCH_AUTH: 'sigv4',
        }),
      },
    });
  });
});
