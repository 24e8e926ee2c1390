import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../lib/bundling';

export type Json = Record<string, unknown>;

export interface Resource {
  readonly Type: string;
  readonly Properties: Json;
}

/** The deployable artifact: a cloud assembly as `cdk synth` writes it, and the one stack in it. */
export interface CloudAssembly {
  readonly outdir: string;
  readonly stackName: string;
  readonly resources: Readonly<Record<string, Resource>>;
  /** The asset folder behind a Lambda function's code (its S3Key), as `cdk deploy` would publish it. */
  assetDirOf(functionId: string): string;
}

/**
 * Runs `npx cdk synth` as a developer or CI does (cdk.json, bin/app.ts, esbuild, cdk-nag), with extra
 * context, into a new folder, and reads the result. Throws with the CLI's output if it fails.
 */
export function synthesizeApp(context: Readonly<Record<string, string>> = {}): CloudAssembly {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-assembly-'));
  const args = [
    'cdk',
    'synth',
    '--quiet',
    '--output',
    outdir,
    ...Object.entries(context).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
  ];
  const run = spawnSync('npx', args, { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 300_000 });
  if (run.status !== 0) throw new Error(`cdk synth failed (${run.status}):\n${run.stdout}${run.stderr}`);
  const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const [stackName, stack] =
    Object.entries(manifest.artifacts).find(([, a]) => a.type === 'aws:cloudformation:stack') ?? [];
  if (!stackName || !stack?.properties?.templateFile) throw new Error(`no stack in ${outdir}/manifest.json`);
  const template = JSON.parse(readFileSync(join(outdir, stack.properties.templateFile), 'utf8')) as {
    Resources: Record<string, Resource>;
  };
  const assets = JSON.parse(readFileSync(join(outdir, `${stackName}.assets.json`), 'utf8')) as {
    files: Record<
      string,
      { source: { path: string; packaging?: string }; destinations: Record<string, { objectKey: string }> }
    >;
  };
  // What `cdk deploy` uploads under each S3 key: the asset manifest's source folder for that object.
  const sourceByKey = new Map(
    Object.values(assets.files).flatMap((file) =>
      Object.values(file.destinations).map((d) => [d.objectKey, file.source.path] as const),
    ),
  );
  return {
    outdir,
    stackName,
    resources: template.Resources,
    assetDirOf(functionId) {
      const code = template.Resources[functionId]?.Properties.Code as { S3Key?: string } | undefined;
      const source = code?.S3Key ? sourceByKey.get(code.S3Key) : undefined;
      if (!source) throw new Error(`${functionId} has no code asset in the assembly`);
      return join(outdir, source);
    },
  };
}

/** The logical ids of the resources of one type. */
export const idsOf = (assembly: CloudAssembly, type: string): string[] =>
  Object.entries(assembly.resources)
    .filter(([, r]) => r.Type === type)
    .map(([id]) => id);

/** What a reference stands for: a resource's physical id (`Ref`) or one of its attributes (`Fn::GetAtt`). */
export type PhysicalValues = (logicalId: string, resource: Resource, attribute?: string) => string | undefined;

/**
 * Resolves CloudFormation intrinsic functions in template values, as CloudFormation would at deploy
 * time, with the physical values the test chose (its table name, its endpoints). A reference it has
 * no value for throws, so a function never starts with a half-resolved environment.
 */
export class Resolver {
  constructor(
    private readonly assembly: CloudAssembly,
    private readonly physical: PhysicalValues,
    private readonly pseudo: Readonly<Record<string, string>> = {
      'AWS::Region': 'us-east-1',
      'AWS::AccountId': '123456789012',
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
    },
  ) {}

  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((v) => this.resolve(v));
    if (!value || typeof value !== 'object') return value;
    const entries = Object.entries(value as Json);
    if (entries.length === 1) {
      const [fn, arg] = entries[0]!;
      switch (fn) {
        case 'Ref':
          return this.ref(arg as string);
        case 'Fn::GetAtt':
          return this.attribute(...(arg as [string, string]));
        case 'Fn::Join': {
          const [separator, parts] = arg as [string, unknown[]];
          return (this.resolve(parts) as unknown[]).join(separator);
        }
        case 'Fn::Select': {
          const [index, list] = arg as [number, unknown];
          return (this.resolve(list) as unknown[])[Number(index)];
        }
        case 'Fn::Split': {
          const [separator, text] = arg as [string, unknown];
          return String(this.resolve(text)).split(separator);
        }
        case 'Fn::Sub':
          return this.sub(arg as string | [string, Json]);
      }
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, this.resolve(v)]));
  }

  /** The value as a string (environment variables, properties). */
  text(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string' && typeof resolved !== 'number' && typeof resolved !== 'boolean')
      throw new Error(`not a scalar: ${JSON.stringify(value)}`);
    return String(resolved);
  }

  private ref(name: string): string {
    if (name in this.pseudo) return this.pseudo[name]!;
    return this.lookup(name);
  }

  private attribute(id: string, attribute: string): string {
    return this.lookup(id, attribute);
  }

  private lookup(id: string, attribute?: string): string {
    const resource = this.assembly.resources[id];
    if (!resource) throw new Error(`the template has no resource ${id}`);
    const value = this.physical(id, resource, attribute);
    if (value === undefined)
      throw new Error(`no physical value for ${attribute ? `${id}.${attribute}` : id} (${resource.Type})`);
    return value;
  }

  private sub(arg: string | [string, Json]): string {
    const [text, vars] = typeof arg === 'string' ? [arg, {}] : arg;
    return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => {
      if (name in vars) return this.text(vars[name]);
      const [id, attribute] = name.split('.');
      return attribute ? this.attribute(id!, attribute) : this.ref(id!);
    });
  }
}
