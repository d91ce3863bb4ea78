import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { Enricher, needsEnrichment } from '../../lambdas/adapters/enrich';
import type { Incident } from '../../lambdas/core/incidents/aggregate';
import type { FindingContext } from '../../lambdas/core/findings/context';

/**
 * The AWS half of `analyze --enrich`. Only this module imports the AWS SDK; the CLI requires it
 * when `--enrich` is given, and the build writes it to its own file (dist/enrich.js), so every
 * other run neither loads nor parses the SDK.
 */
export interface EnrichOptions {
  region: string;
  discoveryTag: string;
  systemNodegroup?: string;
  budgetMs: number;
}

/** The same enrichment as the Lambda, with the caller's credentials and region. */
export async function enrichIncidents(
  incidents: Incident[],
  options: EnrichOptions,
): Promise<Map<string, FindingContext>> {
  const targets = incidents.filter((incident) => needsEnrichment(incident.rule));
  if (targets.length === 0) return new Map();
  const config = { region: options.region, retryMode: 'standard', maxAttempts: 3 };
  const enricher = new Enricher(
    {
      ec2: new EC2Client(config),
      eks: new EKSClient(config),
      autoScaling: new AutoScalingClient(config),
      serviceQuotas: new ServiceQuotasClient(config),
    },
    {
      clusterSettings: (cluster) => ({
        discoveryTagKey: options.discoveryTag,
        discoveryTagValue: cluster,
        systemNodegroup: options.systemNodegroup,
      }),
    },
  );
  return enricher.enrich(targets, options.budgetMs);
}
