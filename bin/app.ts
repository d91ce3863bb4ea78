#!/usr/bin/env node
import { App, Aspects, CfnRule, Fn, type Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { KarpenterDoctorStack } from '../lib/karpenter-doctor-stack';
import { KarpenterDoctorSpokeStack, spokeAccountsOf } from '../lib/spoke-stack';
import { ConfigError } from '../contracts/config';
import { configFromContext, EXAMPLE_CONFIG, hasOwnConfig, parseConfigFile } from './config-source';
import { readFileSync } from 'node:fs';

// The CDK app. Context and environment are read here only (docs/architecture.md, Layers and import rules);
// the stack gets typed props.
const app = new App();

// Without a configuration `cdk synth` shows the example, and CloudFormation refuses to deploy it: a
// deploy never takes the example's clusters and addresses by accident.
function guardExample(stack: Stack): void {
  new CfnRule(stack, 'ExampleConfigurationIsNotDeployable', {
    assertions: [
      {
        assert: Fn.conditionEquals('example', 'your own configuration'),
        assertDescription:
          "Synthesized from the example configuration: deploy with -c config=<your file.jsonc> or -c karpenterDoctor='{…}'",
      },
    ],
  });
}

try {
  const own = hasOwnConfig(app);
  const config = own ? configFromContext(app) : parseConfigFile(readFileSync(EXAMPLE_CONFIG, 'utf8'), EXAMPLE_CONFIG);
  const central = new KarpenterDoctorStack(app, 'KarpenterDoctor', {
    description: 'karpenter-doctor: diagnoses why Karpenter cannot scale an EKS cluster',
    config,
  });
  // Clusters of other accounts: the stack their StackSet deploys into every account (README, Three shapes).
  const accounts = spokeAccountsOf(config);
  if (accounts.length > 0) {
    const spoke = new KarpenterDoctorSpokeStack(app, 'KarpenterDoctorSpoke', {
      description:
        'karpenter-doctor spoke: subscribes this account to the central destination, roles for the central functions',
      accounts,
      remediation: config.remediation,
      subscriptions: config.subscriptions,
    });
    if (!own) guardExample(spoke);
  }
  if (!own) guardExample(central);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
app.synth();
