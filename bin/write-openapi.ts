import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { openApiDocument } from '#shared/openapi/document';
import { parseCommand, runAsProcess } from './cli/run';

/** `npm run openapi`: writes openapi.json at the repository root (a test checks it is current). */
export async function writeOpenApiCli(argv: readonly string[]): Promise<number> {
  const target = join(__dirname, '..', 'openapi.json');
  const program = new Command('openapi').description(`Write the OpenAPI document (from the zod schemas) to ${target}.`);
  const exit = parseCommand(program, argv);
  if (exit !== undefined) return exit;
  writeFileSync(target, JSON.stringify(openApiDocument(), null, 2) + '\n');
  console.log(`wrote ${target}`);
  return 0;
}

if (require.main === module) runAsProcess('openapi', writeOpenApiCli);
