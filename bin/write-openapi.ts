import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '#shared/openapi/document';

/** `npm run openapi`: writes openapi.json at the repository root (a test checks it is current). */
const target = join(__dirname, '..', 'openapi.json');
writeFileSync(target, JSON.stringify(openApiDocument(), null, 2) + '\n');
console.log(`wrote ${target}`);
