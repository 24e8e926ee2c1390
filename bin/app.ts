#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { Command } from 'commander';
import { parseCommand } from './cli/run';
import { readConfig } from '../lib/config';
import { ServiceStack } from '../lib/stack';

// Help (or a flag this app does not take) ends here, before any construct is built: building one
// bundles the functions' assets.
const exit = parseCommand(
  new Command('app').description(
    'The CDK app of the service: one stack per stage. Run it through the CDK CLI: `npx cdk synth` (or `npm run synth`), `npx cdk deploy -c stage=prod`; context: stage, account, region (see docs/deploy.md).',
  ),
  process.argv,
);
if (exit !== undefined) process.exit(exit);

/**
 * The CDK app: one stack per stage (`-c stage=prod`), checked with cdk-nag AwsSolutions at every
 * synth (an unacknowledged error fails the synth). Without `-c account=` / `-c region=` the stack is
 * environment-agnostic and `cdk deploy` targets the account and region of the CLI's credentials.
 */
const app = new App();
const config = readConfig(app.node);
new ServiceStack(app, `LocationReporting-${config.stage}`, {
  config,
  ...(config.account || config.region ? { env: { account: config.account, region: config.region } } : {}),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
