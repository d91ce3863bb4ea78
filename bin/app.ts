#!/usr/bin/env node
import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { KarpenterDoctorStack } from '../lib/karpenter-doctor-stack';
import { KarpenterDoctorSpokeStack, spokeAccountsOf } from '../lib/spoke-stack';
import { ConfigError } from '../contracts/config';
import { configFromContext } from './config-source';

// The CDK app. Context and environment are read here only (docs/architecture.md, Layers and import rules);
// the stack gets typed props.
const app = new App();
try {
  const config = configFromContext(app);
  new KarpenterDoctorStack(app, 'KarpenterDoctor', {
    description: 'karpenter-doctor: diagnoses why Karpenter cannot scale an EKS cluster',
    config,
  });
  // Clusters of other accounts: the stack their StackSet deploys into every account (README, Three shapes).
  const accounts = spokeAccountsOf(config);
  if (accounts.length > 0) {
    new KarpenterDoctorSpokeStack(app, 'KarpenterDoctorSpoke', {
      description:
        'karpenter-doctor spoke: subscribes this account to the central destination, roles for the central functions',
      accounts,
      remediation: config.remediation,
      subscriptions: config.subscriptions,
    });
  }
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
app.synth();
