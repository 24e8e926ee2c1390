import { join, resolve } from 'node:path';

/** The seeded organization of the local service (a fixed UUID, so tokens survive restarts). */
export const LOCAL_ORGANIZATION_ID = '7d1b5a52-4c44-4f57-9d0a-5e0d1c1e0a01';
/** The table `npm start -- --dynamodb-endpoint URL` uses unless `--table` names another. */
export const LOCAL_TABLE_NAME = 'lrs-local';

/** Where the local service keeps its data: DATA_DIR, default `./.data` (ignored by git). */
export function dataPaths(dataDir = process.env.DATA_DIR ?? '.data') {
  const root = resolve(dataDir);
  return {
    root,
    duckdb: join(root, 'reports.duckdb'),
    locations: join(root, 'locations.jsonl'),
    /** Where versions before the embedded table kept locations (dynalite's LevelDB folder). */
    legacyDynamo: join(root, 'dynamo'),
    devKey: join(root, 'dev-key.json'),
  };
}
