#!/usr/bin/env node
import { App } from 'aws-cdk-lib';
import { KarpenterDoctorStack } from '../lib/karpenter-doctor-stack';

// The CDK app. Context and environment are read here only (DESIGN §2); the stack gets typed props.
const app = new App();
new KarpenterDoctorStack(app, 'KarpenterDoctor', {
  description: 'karpenter-doctor: diagnoses why Karpenter cannot scale an EKS cluster',
});
app.synth();
