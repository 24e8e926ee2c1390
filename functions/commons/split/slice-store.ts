import { randomUUID } from 'node:crypto';
import { lazy } from '../clients/lazy';
import { tracer } from '../powertools/tracer';
import { ENV } from '../env';
import type { SliceRef } from '#shared/report/split/contract';

/**
 * Where a slice result too large for the Step Functions state payload goes: the worker puts it, the
 * query function gets it back by reference. In AWS an S3 bucket (SLICE_RESULTS_BUCKET) whose objects
 * expire after a day (lib/split.ts), so nothing is deleted here.
 */
export interface SliceResultStore {
  put(body: string): Promise<SliceRef>;
  get(ref: SliceRef): Promise<string>;
}

/** The S3 SDK and the process's client, loaded and built on first use (only split reports need them). */
const s3 = lazy(async () => {
  const [{ createS3Objects }, t] = await Promise.all([import('../clients/s3-client'), tracer()]);
  return createS3Objects((client) => t?.captureAWSv3Client(client) ?? client);
});

/** The S3 store of one bucket. */
export function s3SliceStore(bucket: string): SliceResultStore {
  return {
    async put(body) {
      const key = `slices/${randomUUID()}.json`;
      await (await s3()).put(bucket, key, body);
      return { bucket, key, bytes: Buffer.byteLength(body) };
    },
    async get(ref) {
      return (await s3()).get(ref.bucket, ref.key);
    },
  };
}

/** An in-memory store, for tests and the local server. */
export function memorySliceStore(): SliceResultStore & { readonly objects: Map<string, string> } {
  const objects = new Map<string, string>();
  return {
    objects,
    async put(body) {
      const key = `slices/${randomUUID()}.json`;
      objects.set(key, body);
      return { bucket: 'memory', key, bytes: Buffer.byteLength(body) };
    },
    async get(ref) {
      const body = objects.get(ref.key);
      if (body === undefined) throw new Error(`no slice result ${ref.key}`);
      return body;
    },
  };
}

let store: SliceResultStore | undefined;

/**
 * The S3 store of SLICE_RESULTS_BUCKET, built once; undefined when the variable is not set. The S3
 * SDK is loaded on the store's first put or get, not here.
 */
export function sliceStoreFromEnv(): SliceResultStore | undefined {
  const bucket = process.env[ENV.sliceResultsBucket];
  if (!bucket) return undefined;
  store ??= s3SliceStore(bucket);
  return store;
}
