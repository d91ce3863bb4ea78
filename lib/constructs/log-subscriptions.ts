import { createHash } from 'node:crypto';
import { ArnFormat, CfnParameter, Stack, Token } from 'aws-cdk-lib';
import { CfnPermission, type IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  CfnAccountPolicy,
  FilterPattern,
  LogGroup,
  SubscriptionFilter,
  type ILogSubscriptionDestination,
  type IFilterPattern,
  type LogSubscriptionDestinationConfig,
} from 'aws-cdk-lib/aws-logs';
import { LambdaDestination } from 'aws-cdk-lib/aws-logs-destinations';
import { Construct } from 'constructs';
import { filterPatternProblems } from '../../contracts/filter-pattern';
import { SUBSCRIPTION_NAME } from '../../contracts/names';
import { defaultFilterPattern } from '../filter-pattern';

/** The log groups of one cluster and how they are filtered. */
export interface SubscribedCluster {
  readonly name: string;
  /** Exact log group names; with the account policy, also patterns ending in `*` (never subscribed one by one). */
  readonly logGroups: readonly string[];
  /**
   * A CloudWatch Logs filter pattern that replaces the default one for this cluster's groups
   * (per-group filters only: the account policy has one pattern for every group).
   * @default - the default pattern (see DEFAULT_FILTER_TERMS)
   */
  readonly filterPattern?: string;
}

/**
 * How log groups reach the analyzer: one subscription filter per configured log group (`log-groups`),
 * or one account-level subscription filter policy for every log group of the account and region but
 * the excluded ones (`account-policy`, one CloudFormation resource whatever the number of groups).
 */
export type SubscriptionMode = 'log-groups' | 'account-policy';

/** Where deliveries go: the analyzer in this account, or a CloudWatch Logs destination in another. */
export type SubscriptionTarget =
  | { readonly function: IFunction }
  /** A CloudWatch Logs destination (`arn:…:logs:<region>:<account>:destination:<name>`), whose policy admits this account. */
  | { readonly destinationArn: string };

export interface LogSubscriptionsProps {
  readonly target: SubscriptionTarget;
  readonly clusters: readonly SubscribedCluster[];
  /** @default 'log-groups' */
  readonly mode?: SubscriptionMode;
  /**
   * Log groups the account policy never subscribes: the functions' own log groups (a function whose
   * log group is subscribed to itself feeds on its own output), and whatever the config lists.
   * @default - none
   */
  readonly exclude?: readonly string[];
  /**
   * The account policy's filter pattern.
   * @default - the default pattern (see DEFAULT_FILTER_TERMS)
   */
  readonly filterPattern?: string;
}

/**
 * At most this many invoke permissions: each is a statement of about 350 bytes in the analyzer's
 * resource policy, which may not exceed 20,480 bytes (docs/architecture.md, AWS limits the design respects).
 */
export const MAX_INVOKE_PERMISSIONS = 20;

/** `LogGroupName NOT IN [...]` may be at most 25 KB long (CloudFormation AWS::Logs::AccountPolicy). */
const MAX_SELECTION_CRITERIA_BYTES = 25 * 1024;

/**
 * Subscribes the configured log groups to the analyzer (or the organisation's destination), with a few
 * invoke permissions bounded to them (docs/architecture.md, Subscriptions and their permissions).
 */
export class LogSubscriptions extends Construct {
  public readonly filters: SubscriptionFilter[] = [];
  /** The invoke permissions (none when the target is a destination in another account). */
  public readonly permissions: CfnPermission[] = [];
  /** Set in `account-policy` mode. */
  public readonly accountPolicy?: CfnAccountPolicy;

  constructor(scope: Construct, id: string, props: LogSubscriptionsProps) {
    super(scope, id);
    const mode = props.mode ?? 'log-groups';
    validateSubscriptionProps(props, mode);

    const target = props.target;
    if ('function' in target) {
      const groups = props.clusters.flatMap((c) => c.logGroups);
      this.permissions.push(
        ...this.invokePermissions(target.function, mode === 'account-policy' ? ['*'] : invokeSourcesOf(groups)),
      );
    }
    if (mode === 'account-policy') {
      const destinationArn = 'function' in target ? target.function.functionArn : target.destinationArn;
      this.accountPolicy = this.subscribeAccount(destinationArn, props);
    } else {
      const destination =
        'function' in target
          ? new LambdaDestination(target.function, { addPermissions: false })
          : new DestinationArn(target.destinationArn);
      this.filters.push(...this.subscribeGroups(destination, props.clusters));
    }
  }

  /** Lets CloudWatch Logs of this account invoke `fn` for log groups whose ARN resource name matches a source. */
  private invokePermissions(fn: IFunction, sources: readonly string[]): CfnPermission[] {
    const stack = Stack.of(this);
    return sources.map(
      (source, index) =>
        new CfnPermission(this, index === 0 ? 'InvokePermission' : `InvokePermission${index}`, {
          action: 'lambda:InvokeFunction',
          functionName: fn.functionArn,
          principal: 'logs.amazonaws.com',
          sourceAccount: stack.account,
          sourceArn: stack.formatArn({
            service: 'logs',
            resource: 'log-group',
            resourceName: source,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        }),
    );
  }

  /** One account-level subscription filter policy for every log group but the excluded ones. */
  private subscribeAccount(destinationArn: string, props: LogSubscriptionsProps): CfnAccountPolicy {
    const pattern = props.filterPattern ?? defaultFilterPattern().logPatternString;
    const exclude = [...new Set(props.exclude ?? [])];
    const policy = new CfnAccountPolicy(this, 'AccountPolicy', {
      policyName: SUBSCRIPTION_NAME,
      policyType: 'SUBSCRIPTION_FILTER_POLICY',
      scope: 'ALL',
      selectionCriteria: `LogGroupName NOT IN [${exclude.map((name) => (Token.isUnresolved(name) ? `"${name}"` : JSON.stringify(name))).join(', ')}]`,
      policyDocument: Stack.of(this).toJsonString({ DestinationArn: destinationArn, FilterPattern: pattern }),
    });
    for (const permission of this.permissions) policy.node.addDependency(permission);
    return policy;
  }

  /** One subscription filter per log group, with its cluster's filter pattern or the default one. */
  private subscribeGroups(
    destination: ILogSubscriptionDestination,
    clusters: readonly SubscribedCluster[],
  ): SubscriptionFilter[] {
    const stack = Stack.of(this);
    return clusters.flatMap((cluster) => {
      const pattern: IFilterPattern = cluster.filterPattern
        ? FilterPattern.literal(cluster.filterPattern)
        : FilterPattern.literal(defaultPatternParameter(stack).valueAsString);
      return cluster.logGroups.map((name) => {
        // Ids follow the group name, not its position, so reordering the config replaces nothing.
        const key = idOf(name);
        const filter = new SubscriptionFilter(this, `Filter${key}`, {
          logGroup: LogGroup.fromLogGroupName(this, `Group${key}`, name),
          destination,
          filterPattern: pattern,
          filterName: SUBSCRIPTION_NAME,
        });
        for (const permission of this.permissions) filter.node.addDependency(permission);
        return filter;
      });
    });
  }
}

/**
 * Fails the synth on what CloudWatch Logs would refuse: a pattern of log groups with per-group
 * filters, a cluster's own filter pattern with the account policy (which has one for every group), a
 * filter pattern CloudWatch Logs would not parse (contracts/filter-pattern.ts), and exclusions longer
 * than the account policy's selection criteria may be.
 */
function validateSubscriptionProps(props: LogSubscriptionsProps, mode: SubscriptionMode): void {
  const name = 'LogSubscriptions';
  if (mode === 'log-groups') {
    const patterns = props.clusters.flatMap((c) => c.logGroups).filter(isPattern);
    if (patterns.length > 0) {
      throw new Error(
        `${name}: log group patterns (${patterns.slice(0, 3).join(', ')}) can only be subscribed by the account policy; list exact names or choose subscriptions.mode "account-policy"`,
      );
    }
  } else {
    const own = props.clusters.filter((c) => c.filterPattern !== undefined).map((c) => c.name);
    if (own.length > 0) {
      throw new Error(
        `${name}: the account policy has one filter pattern for every log group; clusters ${own.join(', ')} set their own (set subscriptions.filterPattern instead)`,
      );
    }
  }
  const patterns = [
    ...props.clusters.map((c) => [`the filter pattern of cluster ${c.name}`, c.filterPattern] as const),
    ['filterPattern', props.filterPattern] as const,
  ];
  for (const [what, pattern] of patterns) {
    if (pattern === undefined || Token.isUnresolved(pattern)) continue;
    const problems = filterPatternProblems(pattern);
    if (problems.length > 0) throw new Error(`${name}: ${what} ${problems.join('; ')}`);
  }
  if (mode === 'account-policy') {
    // Tokens (the functions' generated log group names) are at most 512 characters once resolved.
    const bytes = [...new Set(props.exclude ?? [])].reduce(
      (sum, group) => sum + (Token.isUnresolved(group) ? 512 : Buffer.byteLength(group) + 4),
      30,
    );
    if (bytes > MAX_SELECTION_CRITERIA_BYTES) {
      throw new Error(
        `${name}: the account policy's exclusions take up to ${bytes} bytes; CloudWatch Logs allows ${MAX_SELECTION_CRITERIA_BYTES}`,
      );
    }
  }
}

/**
 * The default filter pattern, once per template: a parameter whose default is the pattern, which
 * every filter refers to. Written into each of hundreds of filters, its thousand characters would
 * take most of CloudFormation's 1 MB template limit.
 */
function defaultPatternParameter(stack: Stack): CfnParameter {
  const id = 'DefaultFilterPattern';
  return (
    (stack.node.tryFindChild(id) as CfnParameter | undefined) ??
    new CfnParameter(stack, id, {
      type: 'String',
      default: defaultFilterPattern().logPatternString,
      maxLength: 1024,
      description:
        'The CloudWatch Logs filter pattern of the karpenter-doctor subscription filters (the default lets through the lines its rules recognise)',
    })
  );
}

/** A CloudWatch Logs destination in another account: it needs no role from the subscribing side. */
class DestinationArn implements ILogSubscriptionDestination {
  constructor(private readonly arn: string) {}
  bind(): LogSubscriptionDestinationConfig {
    return { arn: this.arn };
  }
}

export const isPattern = (logGroup: string): boolean => logGroup.endsWith('*');

/** How the configuration chooses the subscription mode (`subscriptions` in the config). */
export interface SubscriptionChoice {
  /**
   * `auto` chooses the account policy for an account with `accountPolicyFrom` log groups or more, or
   * with a pattern among them, and per-group filters below.
   * @default 'auto'
   */
  readonly mode?: SubscriptionMode | 'auto';
  /** @default DEFAULT_ACCOUNT_POLICY_FROM */
  readonly accountPolicyFrom?: number;
  /**
   * Log groups the account policy never subscribes.
   * @default - none
   */
  readonly exclude?: readonly string[];
  /**
   * The account policy's filter pattern.
   * @default - the default pattern
   */
  readonly filterPattern?: string;
}

/** At this many log groups in one account, `auto` subscribes them with the account policy. */
export const DEFAULT_ACCOUNT_POLICY_FROM = 200;

/** The subscription mode of one account's clusters. */
export function subscriptionModeOf(
  clusters: readonly SubscribedCluster[],
  choice: SubscriptionChoice = {},
): SubscriptionMode {
  const mode = choice.mode ?? 'auto';
  if (mode !== 'auto') return mode;
  const groups = clusters.flatMap((c) => c.logGroups);
  const from = choice.accountPolicyFrom ?? DEFAULT_ACCOUNT_POLICY_FROM;
  return groups.length >= from || groups.some(isPattern) ? 'account-policy' : 'log-groups';
}

/**
 * The source ARN resource names (after `log-group:`) that admit exactly the configured groups' deliveries,
 * as few as bounds allow: an exact name (`name:*`, the ARN a subscription delivers under) for a group alone
 * in its folder, the folder (`folder/*`) for groups that share one; while there are more than `max`, the
 * two that share the longest folder are merged into it. Never `*`: groups that share no folder at all, more
 * than `max` of them, are an error that says what to do instead.
 */
export function invokeSourcesOf(groups: readonly string[], max = MAX_INVOKE_PERMISSIONS): string[] {
  const byFolder = new Map<string, string[]>();
  for (const name of new Set(groups)) {
    const folder = folderOf(name);
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), name]);
  }
  // A source is a folder prefix ending in '/' (covers every group below it) or an exact group name.
  let sources: string[] = [...byFolder].flatMap(([folder, names]) =>
    names.length > 1 && folder !== '' ? [folder] : names,
  );
  while (sources.length > max) {
    let best = '';
    for (let i = 0; i < sources.length; i++) {
      for (let j = i + 1; j < sources.length; j++) {
        const shared = sharedFolder(sources[i]!, sources[j]!);
        if (shared.length > best.length) best = shared;
      }
    }
    if (best === '') {
      throw new Error(
        `The ${groups.length} log groups fall in ${sources.length} places that share no prefix; CloudWatch Logs may invoke the analyzer through at most ${max} permissions. Give the groups a common prefix, or choose subscriptions.mode "account-policy"`,
      );
    }
    sources = [best, ...sources.filter((s) => !s.startsWith(best))];
  }
  return sources.map((s) => (s.endsWith('/') ? `${s}*` : `${s}:*`)).sort();
}

/** The folder of a log group name: everything up to and including its last '/', or '' at the top. */
function folderOf(name: string): string {
  const slash = name.lastIndexOf('/');
  return slash > 0 ? name.slice(0, slash + 1) : '';
}

/** The longest folder two sources share (ending in '/', never the bare root), or ''. */
function sharedFolder(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const slash = a.slice(0, i).lastIndexOf('/');
  return slash > 0 ? a.slice(0, slash + 1) : '';
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
