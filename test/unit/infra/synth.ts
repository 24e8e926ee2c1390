import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readConfig } from '../../../lib/config';
import { HANDLERS, type HandlerName, handlerPath, PROJECT_ROOT, ServiceStack } from '../../../lib/stack';

/** The context of cdk.json: the defaults `cdk synth` uses, feature flags included. */
export function cdkJsonContext(): Record<string, unknown> {
  return JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')).context;
}

export const STUB_HANDLER = resolve(__dirname, 'fixtures/stub-handler.ts');

/** Handlers whose module is not written yet; the stack tests build a stub in their place. */
export const missingHandlers = (): HandlerName[] =>
  HANDLERS.filter((name) => !existsSync(join(PROJECT_ROOT, handlerPath(name))));

export interface SynthOptions {
  /** Context on top of cdk.json's. */
  readonly context?: Record<string, unknown>;
  /** Run esbuild for every function (slow-ish); otherwise bundling is skipped. @default false */
  readonly bundle?: boolean;
  /** Add the cdk-nag AwsSolutions plugin (synth throws on an unacknowledged error). @default false */
  readonly nag?: boolean;
}

export interface Synthesized {
  readonly app: App;
  readonly stack: ServiceStack;
  readonly template: Template;
  readonly outdir: string;
}

const outdirs: string[] = [];

/** A fresh temporary directory for a cloud assembly, removed by `removeSynthOutputs`. */
export function newOutdir(): string {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-test-'));
  outdirs.push(outdir);
  return outdir;
}

/** Removes every cloud assembly this test file synthesized (call in `afterAll`). */
export function removeSynthOutputs(): void {
  for (const dir of outdirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Builds the service stack as bin/app.ts does, into a temporary cloud assembly. */
export function synthService(options: SynthOptions = {}): Synthesized {
  const outdir = newOutdir();
  const context: Record<string, unknown> = { ...cdkJsonContext(), ...options.context };
  // An empty list of bundling stacks makes CDK skip esbuild (assets get a placeholder hash).
  if (!options.bundle) context['aws:cdk:bundling-stacks'] = [];
  const app = new App({ outdir, context });
  const config = readConfig(app.node);
  const entries = Object.fromEntries(missingHandlers().map((name) => [name, STUB_HANDLER]));
  const stack = new ServiceStack(app, `LocationReporting-${config.stage}`, { config, entries });
  if (options.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
  return { app, stack, template: Template.fromStack(stack), outdir };
}

type Json = Record<string, unknown>;

/** Resources of one type, keyed by logical id. */
export const resourcesOf = (template: Template, type: string): Record<string, Json> =>
  template.findResources(type) as Record<string, Json>;

const props = (resource: Json): Json => (resource.Properties ?? {}) as Json;

/** The logical id of the one Lambda function with this description (descriptions name the route or job). */
export function functionId(template: Template, description: string | RegExp): string {
  const ids = Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))
    .filter(([, r]) => {
      const d = props(r).Description;
      return typeof d === 'string' && (typeof description === 'string' ? d === description : description.test(d));
    })
    .map(([id]) => id);
  if (ids.length !== 1) throw new Error(`expected one function described ${description}, found ${ids.length}`);
  return ids[0]!;
}

export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

/** Every statement of the inline policies attached to the execution role of a function. */
export function statementsOfFunction(template: Template, fnId: string): Statement[] {
  const fn = resourcesOf(template, 'AWS::Lambda::Function')[fnId]!;
  const role = (props(fn).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return statementsOfRole(template, role);
}

export function statementsOfRole(template: Template, roleId: string): Statement[] {
  return Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
    .filter((p) => ((props(p).Roles as Json[]) ?? []).some((r) => (r as { Ref?: string }).Ref === roleId))
    .flatMap((p) => (props(p).PolicyDocument as { Statement: Statement[] }).Statement);
}

/** All actions granted, sorted, without duplicates. */
export const actionsOf = (statements: readonly Statement[]): string[] =>
  [...new Set(statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])))].sort();

/** A CloudFormation value rendered readably: `{Fn::GetAtt:[X,Arn]}` → `X.Arn`, `{Ref:X}` → `X`, joins concatenated. */
export function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(render).join(',');
  const v = value as Json;
  if (v['Fn::GetAtt']) return (v['Fn::GetAtt'] as string[]).join('.');
  if (v.Ref) return `${v.Ref}`;
  if (v['Fn::Join']) {
    const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map(render).join(sep);
  }
  return JSON.stringify(value);
}

/** The resources of a statement, rendered. */
export const resourcesOfStatement = (s: Statement): string[] =>
  (Array.isArray(s.Resource) ? s.Resource : [s.Resource]).map(render);

/** The Amazon States Language definition of the one state machine, with ARNs rendered as `LogicalId.Arn`. */
export function stateMachineDefinition(template: Template): Json {
  const [machine] = Object.values(resourcesOf(template, 'AWS::StepFunctions::StateMachine'));
  return JSON.parse(render(props(machine!).DefinitionString)) as Json;
}
