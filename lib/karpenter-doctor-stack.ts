import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * The karpenter-doctor stack. So far an empty, environment-agnostic shell: the analyzer function,
 * subscriptions, table, topic, bus and alarms arrive with the stack issue. It synthesizes offline.
 */
export class KarpenterDoctorStack extends Stack {
  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
  }
}
