import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../../../lib/stack';

/**
 * The GitHub Actions pipeline (.github/): linted by actionlint when it is installed, and held to
 * the rules of docs/deploy.md, which no linter checks: pinned actions, least privilege, one
 * deploy of a stage at a time, deploys gated by their environment.
 */
const GITHUB = join(PROJECT_ROOT, '.github');
const WORKFLOWS = readdirSync(join(GITHUB, 'workflows'))
  .filter((f) => /\.ya?ml$/.test(f))
  .map((f) => join(GITHUB, 'workflows', f));
const ACTIONS = readdirSync(join(GITHUB, 'actions')).map((dir) => join(GITHUB, 'actions', dir, 'action.yml'));

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML and JSON, walked freely by the assertions
type Json = Record<string, any>;
const load = (file: string): Json => parse(readFileSync(join(GITHUB, file), 'utf8')) as Json;
const ci = load('workflows/ci.yml');
const deploy = load('workflows/deploy.yml');

/** actionlint on PATH or where `go install` puts it (GOPATH/bin, default ~/go/bin). */
function findActionlint(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), join(process.env.GOPATH ?? join(homedir(), 'go'), 'bin')];
  return dirs.map((d) => join(d, 'actionlint')).find((p) => existsSync(p));
}

const actionlint = findActionlint();
const withActionlint = actionlint ? describe : describe.skip;
if (!actionlint) {
  console.warn(
    'actionlint not found on PATH or in ~/go/bin: the workflow lint tests are SKIPPED here (CI runs actionlint in its own job).\n' +
      `Install it with: go install github.com/rhysd/actionlint/cmd/actionlint@${String(ci.env.ACTIONLINT_VERSION)}`,
  );
}

const lint = (cwd: string, files: string[]) =>
  spawnSync(actionlint!, ['-no-color', ...files], { cwd, encoding: 'utf8', timeout: 60_000 });

withActionlint('actionlint', () => {
  it('finds nothing in the workflows (shellcheck included when installed)', () => {
    const run = lint(PROJECT_ROOT, WORKFLOWS);
    expect({ status: run.status, output: `${run.stdout}${run.stderr}`.trim() }).toEqual({ status: 0, output: '' });
  });

  it('catches a broken workflow (the lint is live)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'actionlint-'));
    try {
      mkdirSync(join(dir, '.github', 'workflows'), { recursive: true });
      const file = join(dir, '.github', 'workflows', 'broken.yml');
      writeFileSync(
        file,
        [
          'on: pull_request',
          'permissions:',
          '  id_token: write',
          'jobs:',
          '  greet:',
          '    runs-on: ubuntu-24.04',
          '    steps:',
          '      - run: echo "${{ github.event.pull_request.title }}"',
          '',
        ].join('\n'),
      );
      const run = lint(dir, [file]);
      expect(run.status).toBe(1);
      expect(run.stdout).toContain('unknown permission scope "id_token"');
      expect(run.stdout).toContain('"github.event.pull_request.title" is potentially untrusted');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the pipeline’s own rules', () => {
  it('pins every action to a full commit SHA with its version in a comment, one pin per action', () => {
    const pins = new Map<string, Set<string>>();
    for (const file of [...WORKFLOWS, ...ACTIONS]) {
      for (const line of readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => /^\s*(-\s+)?uses:/.test(l))) {
        const use = line.replace(/^\s*(-\s+)?uses:\s*/, '');
        if (use.startsWith('./')) continue; // this repository's own action or workflow
        expect(use).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
        const [name, sha] = use.split(' ')[0]!.split('@') as [string, string];
        pins.set(name, (pins.get(name) ?? new Set()).add(sha));
      }
    }
    expect([...pins.keys()].sort()).toEqual([
      'actions/cache',
      'actions/checkout',
      'actions/setup-go',
      'actions/setup-node',
      'aws-actions/configure-aws-credentials',
    ]);
    for (const [name, shas] of pins) expect({ name, pins: shas.size }).toEqual({ name, pins: 1 });
  });

  it('has Dependabot keep the pins of the workflows and of every composite action current, and the npm dependencies', () => {
    const [actions, npm] = load('dependabot.yml').updates as Json[];
    expect(actions!['package-ecosystem']).toBe('github-actions');
    expect(actions!.directories).toEqual(['/', ...ACTIONS.map((a) => `/${relative(PROJECT_ROOT, dirname(a))}`)]);
    expect(npm).toMatchObject({ 'package-ecosystem': 'npm', directory: '/', schedule: { interval: 'weekly' } });
    expect(npm!.groups['minor-and-patch']['update-types']).toEqual(['minor', 'patch']);
  });

  it('checks out without keeping the token, and installs with npm ci on the Node of .nvmrc', () => {
    const steps = [...Object.values(ci.jobs as Json), ...Object.values(deploy.jobs as Json)].flatMap(
      (job: Json) => (job.steps ?? []) as Json[],
    );
    const checkouts = steps.filter((s: Json) => String(s.uses).startsWith('actions/checkout@'));
    expect(checkouts.length).toBe(5);
    for (const step of checkouts) expect(step.with['persist-credentials']).toBe(false);
    const setup = load('actions/setup-project/action.yml').runs.steps as Json[];
    const scripts = [...steps, ...setup].map((s: Json) => s.run ?? '').join('\n');
    expect(scripts).not.toMatch(/npm install\b/);
    expect(setup.map((s) => s.run).filter(Boolean)).toEqual(['npm ci --no-audit --no-fund']);
    expect(setup.find((s) => String(s.uses).startsWith('actions/setup-node@'))!.with['node-version-file']).toBe(
      '.nvmrc',
    );
    const nvmrc = readFileSync(join(PROJECT_ROOT, '.nvmrc'), 'utf8').trim();
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect({ nvmrc, engines: pkg.engines.node }).toEqual({ nvmrc: '22', engines: '>=22' });
    expect(readFileSync(join(PROJECT_ROOT, '.ci/run'), 'utf8')).toMatch(/^npm ci --no-audit --no-fund$/m);
  });

  it('tests with what the suite needs: Java 17, Maven, Chromium and Python from Debian, then .ci/run (the scanners, then npm test)', () => {
    const test = ci.jobs.test as Json;
    expect(test.container).toMatch(/^debian:bookworm/);
    const install = test.steps[0].run as string;
    for (const pkg of ['openjdk-17-jdk-headless', 'maven', 'chromium', 'python3-venv'])
      expect(install.split(/\s+/)).toContain(pkg);
    expect(test.steps.at(-1).run).toBe('bash .ci/run');
    expect(readFileSync(join(PROJECT_ROOT, '.ci/run'), 'utf8').trimEnd().split('\n').at(-1)).toBe('npm test');
  });

  it('runs synth, the size-only bundle check and a read-only diff through the diff role', () => {
    const synthRuns = (ci.jobs.synth as Json).steps.map((s: Json) => s.run).filter(Boolean);
    expect(synthRuns).toEqual(
      expect.arrayContaining([
        'npx cdk synth --quiet',
        expect.stringMatching(/^npm run -s bench -- bundles --sizes-only /),
      ]),
    );
    const diff = ci.jobs.diff as Json;
    const credentials = diff.steps.find((s: Json) =>
      String(s.uses).startsWith('aws-actions/configure-aws-credentials@'),
    );
    expect(credentials.with['role-to-assume']).toBe('${{ vars.AWS_DIFF_ROLE_ARN }}');
    expect(diff.steps.at(-1).run).toContain(
      'npx cdk diff LocationReporting-dev -c stage=dev "${context[@]}" --method=template',
    );
    expect(diff.steps.at(-1).run).toContain('>> "$GITHUB_STEP_SUMMARY"');
  });

  it('deploys dev after every check passed on main, then prod after dev', () => {
    const dev = ci.jobs['deploy-dev'] as Json;
    const prod = ci.jobs['deploy-prod'] as Json;
    expect(dev.needs).toEqual(['actionlint', 'test', 'synth']);
    expect(dev.if).toContain("github.ref == 'refs/heads/main'");
    expect(dev.if).toContain("github.event_name != 'pull_request'");
    expect(prod.needs).toEqual(['deploy-dev']);
    expect([dev.uses, dev.with.stage, dev.with.smoke]).toEqual(['./.github/workflows/deploy.yml', 'dev', 'required']);
    expect([prod.uses, prod.with.stage, prod.with.smoke]).toEqual([
      './.github/workflows/deploy.yml',
      'prod',
      'when-configured',
    ]);
  });

  it('gates each deploy by the environment of its stage, one at a time, never cancelled half-way', () => {
    const job = deploy.jobs.deploy as Json;
    expect(job.environment.name).toBe('${{ inputs.stage }}');
    expect(job.concurrency).toEqual({ group: 'deploy-${{ inputs.stage }}', 'cancel-in-progress': false });
    const credentials = job.steps.find((s: Json) =>
      String(s.uses).startsWith('aws-actions/configure-aws-credentials@'),
    );
    expect(credentials.with['role-to-assume']).toBe('${{ vars.AWS_DEPLOY_ROLE_ARN }}');
    const runs = job.steps.map((s: Json) => s.run ?? '').join('\n');
    expect(runs).toContain('git merge-base --is-ancestor HEAD origin/main');
    expect(runs).toContain('npx cdk deploy "$STACK"');
    expect(runs).toContain('npm run -s smoke -- --api "$API_URL"');
  });

  it('cancels superseded runs of a pull request only', () => {
    expect(ci.concurrency['cancel-in-progress']).toBe("${{ github.event_name == 'pull_request' }}");
    expect(ci.concurrency.group).toContain('github.event.pull_request.number');
    expect(ci.concurrency.group).toContain('github.run_id');
  });
});
