#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { Command } from 'commander';
import { parseCommand } from './cli/run';
import { CiAccessStack, readCiAccessConfig } from '../lib/ci-access';

// Help (or a flag this app does not take) ends here, before any construct is built.
const exit = parseCommand(
  new Command('ci-access').description(
    'The CI access app (OIDC provider, deploy and diff roles), apart from the service. Run it through the CDK CLI: `npx cdk deploy -a "npx tsx bin/ci-access.ts" -c githubRepo=<owner>/<name>` (see docs/deploy.md).',
  ),
  process.argv,
);
if (exit !== undefined) process.exit(exit);

/**
 * The CI access app, apart from the service (docs/deploy.md): deploy it once per account and region,
 * with administrator credentials, after `cdk bootstrap`:
 *
 *   npx cdk deploy -a "npx tsx bin/ci-access.ts" -c githubRepo=<owner>/<name>
 *
 * Optional context: githubEnvironments (default dev,prod), githubBranch (default main),
 * existingOidcProvider=true (the account already has GitHub's provider), bootstrapQualifier.
 * Checked with cdk-nag AwsSolutions like the service.
 */
const app = new App();
const config = readCiAccessConfig(app.node);
new CiAccessStack(app, 'LocationReporting-CiAccess', {
  repository: config.repository,
  deployEnvironments: config.deployEnvironments,
  branch: config.branch,
  existingOidcProvider: config.existingOidcProvider,
  bootstrapQualifier: config.bootstrapQualifier,
  description: `Keyless GitHub Actions access for ${config.repository}: OIDC provider, deploy and diff roles`,
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
