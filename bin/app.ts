#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readConfig } from '../lib/config';
import { ServiceStack } from '../lib/stack';

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
