import { createHash } from 'node:crypto';
import { ArnFormat, Stack } from 'aws-cdk-lib';
import { CfnPermission, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { LambdaDestination } from 'aws-cdk-lib/aws-logs-destinations';
import { FilterPattern, LogGroup, SubscriptionFilter, type IFilterPattern } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { FILTER_NAME_PREFIX } from '../../contracts/names';
import { defaultFilterPattern } from '../filter-pattern';

/** The log groups of one cluster and how they are filtered. */
export interface SubscribedCluster {
  readonly name: string;
  readonly logGroups: readonly string[];
  /**
   * A CloudWatch Logs filter pattern that replaces the default one for this cluster's groups.
   * @default - the default pattern (see DEFAULT_FILTER_TERMS)
   */
  readonly filterPattern?: string;
}

export interface LogSubscriptionsProps {
  readonly destination: IFunction;
  readonly clusters: readonly SubscribedCluster[];
}

/**
 * One subscription filter per configured log group, named `karpenter-doctor.<cluster>` so every
 * delivery says which cluster it is about. CloudWatch Logs may invoke the analyzer through a single
 * resource-policy statement whose source ARN is bounded to this account and region (and to the
 * groups' common name prefix when they share one) — per-group permissions would pass the 20 KB
 * policy limit at a few dozen groups (docs/architecture.md, AWS limits the design respects).
 */
export class LogSubscriptions extends Construct {
  public readonly filters: SubscriptionFilter[] = [];
  public readonly permission: CfnPermission;

  constructor(scope: Construct, id: string, props: LogSubscriptionsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const groups = props.clusters.flatMap((c) => c.logGroups);
    this.permission = new CfnPermission(this, 'InvokePermission', {
      action: 'lambda:InvokeFunction',
      functionName: props.destination.functionArn,
      principal: 'logs.amazonaws.com',
      sourceAccount: stack.account,
      sourceArn: stack.formatArn({
        service: 'logs',
        resource: 'log-group',
        resourceName: `${commonPrefix(groups)}*`,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
    });

    const destination = new LambdaDestination(props.destination, { addPermissions: false });
    for (const cluster of props.clusters) {
      const pattern: IFilterPattern = cluster.filterPattern
        ? FilterPattern.literal(cluster.filterPattern)
        : defaultFilterPattern();
      cluster.logGroups.forEach((name) => {
        // Ids follow the group name, not its position, so reordering the config replaces nothing.
        const key = idOf(name);
        const logGroup = LogGroup.fromLogGroupName(this, `Group${key}`, name);
        const filter = new SubscriptionFilter(this, `Filter${key}`, {
          logGroup,
          destination,
          filterPattern: pattern,
          filterName: `${FILTER_NAME_PREFIX}${cluster.name}`,
        });
        filter.node.addDependency(this.permission);
        this.filters.push(filter);
      });
    }
  }
}

/** The longest common prefix of the names, cut back to the last '/', so the ARN stays a clean prefix. */
export function commonPrefix(names: readonly string[]): string {
  if (names.length === 0) return '';
  let prefix = names[0]!;
  for (const name of names.slice(1)) {
    let i = 0;
    while (i < prefix.length && i < name.length && prefix[i] === name[i]) i++;
    prefix = prefix.slice(0, i);
  }
  if (names.length === 1) return prefix;
  const slash = prefix.lastIndexOf('/');
  return slash > 0 ? prefix.slice(0, slash + 1) : '';
}

/** A construct id for a log group: readable, and unique through a short hash of the full name. */
function idOf(logGroupName: string): string {
  const readable = logGroupName
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
  return `${readable.slice(-40)}${createHash('sha256').update(logGroupName).digest('hex').slice(0, 8)}`;
}
