import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

/**
 * The two S3 calls the slice result store makes, behind named imports: `import()` of this module
 * (not of '@aws-sdk/client-s3' itself, whose namespace object would keep every command and schema
 * of the package) lets esbuild drop the rest of the SDK client.
 */
export function createS3Objects(wrap: (client: S3Client) => S3Client = (c) => c) {
  const client = wrap(new S3Client({}));
  return {
    async put(bucket: string, key: string, body: string): Promise<void> {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'application/json' }),
      );
    },
    async get(bucket: string, key: string): Promise<string> {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (!object.Body) throw new Error(`slice result s3://${bucket}/${key} has no body`);
      return object.Body.transformToString('utf-8');
    },
  };
}
