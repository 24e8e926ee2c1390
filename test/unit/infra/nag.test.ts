import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { filesLoadedAtStart } from '../../../lib/bundling';
import { PROJECT_ROOT } from '../../../lib/stack';
import { newOutdir, removeSynthOutputs, synthService } from './synth';

interface Violation {
  readonly ruleName: string;
  readonly severity: string;
  readonly violatingConstructs: { readonly constructPath: string }[];
}

/** The findings of a synth's validation report (absent when no plugin ran into anything). */
function findings(outdir: string): string[] {
  const file = join(outdir, 'validation-report.json');
  if (!existsSync(file)) return [];
  const report = JSON.parse(readFileSync(file, 'utf8')) as { pluginReports: { violations: Violation[] }[] };
  return report.pluginReports
    .flatMap((r) => r.violations)
    .map((v) => `${v.severity} ${v.ruleName} at ${v.violatingConstructs.map((c) => c.constructPath).join(', ')}`);
}

const SDK_FROM_RUNTIME =
  /(?:^|[;}\n])\s*import\s*(?:[^"';]*?\bfrom\s*)?"@(?:aws-sdk|smithy)\/[^"]+"|[=(,;]\s*require\("@(?:aws-sdk|smithy)\/[^"]+"\)/m;

/** `npx cdk synth` exactly as CI and a developer run it: the CLI, cdk.json, bin/app.ts, esbuild, cdk-nag. */
const cli = { outdir: '', status: null as number | null, output: '' };

beforeAll(() => {
  cli.outdir = newOutdir();
  const run = spawnSync('npx', ['cdk', 'synth', '--quiet', '--output', cli.outdir], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  cli.status = run.status;
  cli.output = `${run.stdout}${run.stderr}`;
});

afterAll(removeSynthOutputs);

describe('npx cdk synth', () => {
  it('synthesizes the app with no cdk-nag AwsSolutions finding left unacknowledged', () => {
    expect({
      status: cli.status,
      errors: cli.output.split('\n').filter((l) => /ERROR|AwsSolutions|Error:/.test(l)),
    }).toEqual({ status: 0, errors: [] });
    expect(findings(cli.outdir)).toEqual([]);
    expect(existsSync(join(cli.outdir, 'LocationReporting-dev.template.json'))).toBe(true);
  });

  it('bundles every function as minified ESM split into chunks with external source maps, at most 1 MB in all, the AWS SDK inside', () => {
    const template = JSON.parse(readFileSync(join(cli.outdir, 'LocationReporting-dev.template.json'), 'utf8')) as {
      Resources: Record<
        string,
        { Type: string; Properties: { Runtime?: string; Handler?: string; Code?: { S3Key?: string } } }
      >;
    };
    const ours = Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Runtime === 'nodejs22.x',
    );
    expect(ours.length).toBeGreaterThanOrEqual(6);
    for (const fn of ours) {
      const dir = join(cli.outdir, `asset.${String(fn.Properties.Code?.S3Key).replace(/\.zip$/, '')}`);
      expect(fn.Properties.Handler).toBe('index.handler');
      expect(
        readdirSync(dir)
          .filter((f) => f !== 'chunks')
          .sort(),
      ).toEqual(['index.mjs', 'index.mjs.map']);
      const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.mjs'));
      const atStart = filesLoadedAtStart(join(dir, 'index.mjs'));
      expect(atStart.length).toBeLessThan(files.length); // the clients are in chunks loaded on first use
      expect(files.reduce((bytes, f) => bytes + statSync(join(dir, f)).size, 0)).toBeLessThanOrEqual(1_000_000);
      for (const file of files) {
        const code = readFileSync(join(dir, file), 'utf8');
        expect(code.trimEnd().endsWith(`//# sourceMappingURL=${basename(file)}.map`)).toBe(true);
        // A static import (a statement, not the SDK's error messages that quote one) or a module-level require of
        // the SDK would mean it is taken from the runtime instead of the bundle.
        expect(code.match(SDK_FROM_RUNTIME)?.[0]).toBeUndefined();
      }
    }
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('catches an unacknowledged error (the check is live)', () => {
    const app = new App({ outdir: newOutdir() });
    new Queue(new Stack(app, 'Control'), 'PlainQueue');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
  });

  it('finds nothing unacknowledged in a production-sized deployment, where no size-related acknowledgement applies', () => {
    const context = { stage: 'prod', openSearchProfile: 'production' };
    const { outdir } = synthService({ context, nag: true });
    expect(findings(outdir)).toEqual([]);
  });

  it('finds nothing unacknowledged with an external JWT issuer instead of the user pool', () => {
    const { outdir } = synthService({
      context: { jwtIssuer: 'https://login.example.com/', jwtAudience: 'api' },
      nag: true,
    });
    expect(findings(outdir)).toEqual([]);
  });
});
