import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { openApiDocument } from '#shared/openapi/document';
import { problemsMarkdown } from '#shared/problem-page';
import { problemTypeBaseError } from '#shared/problem-uri';
import { parseCommand, runAsProcess } from './cli/run';

interface Flags {
  readonly problemTypeBase?: string;
  readonly output?: string;
}

const base = (value: string): string => {
  const error = problemTypeBaseError(value);
  if (error) throw new InvalidArgumentError(error);
  return value;
};

/**
 * `npm run openapi`: writes openapi.json at the repository root and the problems page,
 * docs/problems.md, both from the code (tests check they are current). A deployment that sets
 * `problemTypeBase` writes its own document with `--problem-type-base` and `--output`, so that the
 * problem types its clients compile in are the ones its API answers with.
 */
export async function writeOpenApiCli(argv: readonly string[]): Promise<number> {
  const root = join(__dirname, '..');
  const program = new Command('openapi')
    .description(
      `Write the OpenAPI document (from the zod schemas) to openapi.json, and the problem types to docs/problems.md.`,
    )
    .option(
      '--problem-type-base <url>',
      "the deployment's problemTypeBase: problem types are <url><type> (default /problems#, the API's own page)",
      base,
    )
    .option('--output <file>', 'write the document there instead, and not docs/problems.md');
  const exit = parseCommand(program, argv);
  if (exit !== undefined) return exit;
  const flags = program.opts<Flags>();
  const target = flags.output ? resolve(flags.output) : join(root, 'openapi.json');
  writeFileSync(
    target,
    `${JSON.stringify(openApiDocument(flags.problemTypeBase ? { problemTypeBase: flags.problemTypeBase } : {}), null, 2)}\n`,
  );
  if (flags.output) {
    console.log(`wrote ${target}`);
    return 0;
  }
  const page = join(root, 'docs', 'problems.md');
  writeFileSync(page, problemsMarkdown());
  console.log(`wrote ${target} and ${page}`);
  return 0;
}

if (require.main === module) runAsProcess('openapi', writeOpenApiCli);
