import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { LOCAL_ORGANIZATION_ID } from '../../../bin/local/config';

const ROOT = join(__dirname, '../../..');

/**
 * An ingest token of the local organization, from the token CLI as a user runs it on a server's data folder (its
 * development key).
 */
export const mintIngestToken = (dataDir: string): string =>
  execFileSync(
    process.execPath,
    [
      join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
      'bin/mint-token.ts',
      '--org',
      LOCAL_ORGANIZATION_ID,
      '--scope',
      'ingest',
      '--data-dir',
      dataDir,
    ],
    { cwd: ROOT },
  )
    .toString()
    .trim();
