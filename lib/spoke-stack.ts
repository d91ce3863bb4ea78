import {
  Aws,
  CfnCondition,
  CfnParameter,
  CfnResource,
  DefaultStackSynthesizer,
  Duration,
  Fn,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import { AccountPrincipal, ManagedPolicy, Role, type IRole, type PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { NagSuppressions } from 'cdk-nag';
import { Construct, type IConstruct } from 'constructs';
import { accountIdSchema, type KarpenterDoctorConfig, type RemediationConfig } from '../contracts/config';
import { destinationArnOf, ENRICHMENT_ROLE_NAME, externalIdOf, REMEDIATION_ROLE_NAME } from '../contracts/organization';
import { enrichmentAccess, remediationAccess, type Access, type AccessCluster } from './constructs/aws-access';
import {
  LogSubscriptions,
  subscriptionModeOf,
  type SubscribedCluster,
  type SubscriptionChoice,
} from './constructs/log-subscriptions';
import { requireValid } from './constructs/validate';

/** One cluster of a spoke account: what is subscribed, and what the remediator may change. */
export interface SpokeCluster extends AccessCluster, SubscribedCluster {}

/** The clusters of one account of the organisation. */
export interface SpokeAccount {
  /** Twelve digits. */
  readonly account: string;
  readonly clusters: readonly SpokeCluster[];
}

export interface KarpenterDoctorSpokeStackProps extends StackProps {
  /** Every account that runs clusters, with its clusters. */
  readonly accounts: readonly SpokeAccount[];
  /**
   * The central account (where the analyzer runs and the destination is).
   * @default - a `CentralAccount` template parameter, given when the StackSet is created
   */
  readonly centralAccount?: string;
  /**
   * The roles of the central account allowed to assume the spoke's roles (besides the external id).
   * @default - any principal of the central account that the central account lets assume them
   */
  readonly centralPrincipalArns?: readonly string[];
  /** @default - auto */
  readonly subscriptions?: SubscriptionChoice;
  /** Mode per action; the remediation role exists only when one is not off. */
  readonly remediation: RemediationConfig;
}

/** IAM's limit on a managed policy document, in characters without whitespace. */
const MANAGED_POLICY_CHARS = 6_144;

/** IAM's default quota of managed policies attached to one role. */
const POLICIES_PER_ROLE = 10;

/**
 * The one template every account of the organisation runs (a StackSet), its account-specific parts
 * behind conditions on `AWS::AccountId` (docs/architecture.md, The spoke stack).
 */
export class KarpenterDoctorSpokeStack extends Stack {
  public readonly centralAccount: string;
  public readonly enrichmentRole: IRole;
  /** Undefined while every remediation action is off. */
  public readonly remediationRole?: IRole;
  /** Subscriptions per account. */
  public readonly subscriptions: Record<string, LogSubscriptions> = {};

  constructor(scope: Construct, id: string, props: KarpenterDoctorSpokeStackProps) {
    // A StackSet deploys the template into accounts CDK never bootstrapped: no bootstrap version rule.
    super(scope, id, {
      ...props,
      synthesizer: props.synthesizer ?? new DefaultStackSynthesizer({ generateBootstrapVersionRule: false }),
    });
    this.centralAccount =
      props.centralAccount ??
      new CfnParameter(this, 'CentralAccount', {
        type: 'String',
        allowedPattern: '^\\d{12}$',
        description: 'The account that runs the karpenter-doctor central stack and its CloudWatch Logs destination',
      }).valueAsString;
    validateSpokeAccounts(props.accounts);

    this.enrichmentRole = this.centralRole('EnrichmentRole', ENRICHMENT_ROLE_NAME, props.centralPrincipalArns, {
      description: 'karpenter-doctor central functions: read subnets, VPCs, clusters, node groups and EC2 quotas',
    });
    if (Object.values(props.remediation).some((action) => action.mode !== 'off')) {
      this.remediationRole = this.centralRole('RemediationRole', REMEDIATION_ROLE_NAME, props.centralPrincipalArns, {
        description: 'karpenter-doctor central remediator: the turned-on actions, on opted-in groups only',
      });
    }

    // One short Fn::Sub, not a Fn::Join of six parts, in each of hundreds of filters.
    const destinationArn = Fn.sub(destinationArnOf('${AWS::Partition}', '${AWS::Region}', '${Central}'), {
      Central: this.centralAccount,
    });
    for (const { account, clusters } of props.accounts) {
      const scope = new Construct(this, `Account${account}`);
      policiesFor(scope, 'Enrichment', this.enrichmentRole, clusters, (chunk) => enrichmentAccess(scope, chunk));
      if (this.remediationRole) {
        policiesFor(scope, 'Remediation', this.remediationRole, clusters, (chunk) =>
          remediationAccess(scope, chunk, props.remediation),
        );
      }
      this.subscriptions[account] = new LogSubscriptions(scope, 'Subscriptions', {
        target: { destinationArn },
        clusters,
        mode: subscriptionModeOf(clusters, props.subscriptions),
        exclude: props.subscriptions?.exclude,
        filterPattern: props.subscriptions?.filterPattern,
      });
      const condition = new CfnCondition(this, `IsAccount${account}`, {
        expression: Fn.conditionEquals(Aws.ACCOUNT_ID, account),
      });
      onlyIn(scope, condition);
    }
  }

  /**
   * A role the central functions assume by its name (`roleName`, their contract): only the central
   * account may, only with the external id that names it (and, when given, only those principals of
   * it), for an hour at most.
   */
  private centralRole(
    id: string,
    roleName: string,
    centralPrincipalArns: readonly string[] | undefined,
    { description }: { readonly description: string },
  ): IRole {
    const trust = new AccountPrincipal(this.centralAccount).withConditions({
      StringEquals: { 'sts:ExternalId': externalIdOf(this.centralAccount) },
      ...(centralPrincipalArns?.length ? { ArnLike: { 'aws:PrincipalArn': [...centralPrincipalArns] } } : {}),
    });
    return new Role(this, id, { roleName, assumedBy: trust, maxSessionDuration: Duration.hours(1), description });
  }
}

/** Fails the synth on an account id the schema refuses, an account listed twice, or one without clusters. */
function validateSpokeAccounts(accounts: readonly SpokeAccount[]): void {
  const seen = new Set<string>();
  accounts.forEach(({ account, clusters }, index) => {
    requireValid('KarpenterDoctorSpokeStack', `accounts[${index}].account`, accountIdSchema, account);
    if (seen.has(account)) throw new Error(`KarpenterDoctorSpokeStack: account ${account} is listed twice`);
    if (clusters.length === 0) throw new Error(`KarpenterDoctorSpokeStack: account ${account} has no cluster`);
    seen.add(account);
  });
}

/**
 * Managed policies on `role` for the clusters of one account, as many clusters in each as fit IAM's
 * limit once CloudFormation has resolved the ARNs (measured with the longest partition and region
 * names), each with the suppressions its statements need.
 */
function policiesFor(
  scope: Construct,
  id: string,
  role: IRole,
  clusters: readonly SpokeCluster[],
  access: (chunk: readonly SpokeCluster[]) => Access,
): void {
  const stack = Stack.of(scope);
  const chunks: SpokeCluster[][] = [];
  for (const cluster of clusters) {
    const last = chunks.at(-1);
    if (last && resolvedLength(stack, access([...last, cluster]).statements) <= MANAGED_POLICY_CHARS) {
      last.push(cluster);
    } else {
      chunks.push([cluster]);
    }
  }
  if (chunks.length > POLICIES_PER_ROLE) {
    throw new Error(
      `The ${id.toLowerCase()} access of ${clusters.length} clusters in one account needs ${chunks.length} managed policies; IAM attaches at most ${POLICIES_PER_ROLE} to a role by default`,
    );
  }
  chunks.forEach((chunk, index) => {
    const { statements, suppressions } = access(chunk);
    if (statements.length === 0) return;
    const policy = new ManagedPolicy(scope, `${id}Policy${index}`, { roles: [role], statements });
    NagSuppressions.addResourceSuppressions(policy, suppressions, true);
  });
}

/** The length of a policy document as IAM counts it, with every reference resolved to its longest value. */
export function resolvedLength(stack: Stack, statements: readonly PolicyStatement[]): number {
  const longest: Record<string, string> = {
    'AWS::Partition': 'aws-iso-b',
    'AWS::Region': 'ap-southeast-7'.padEnd(16, 'x'),
    'AWS::AccountId': '123456789012',
  };
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value && typeof value === 'object') {
      const object = value as Record<string, unknown>;
      if (typeof object.Ref === 'string') return longest[object.Ref] ?? '123456789012';
      const join = object['Fn::Join'] as [string, unknown[]] | undefined;
      if (join) return join[1].map(resolve).join(join[0]);
      return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, resolve(v)]));
    }
    return value;
  };
  const document = { Version: '2012-10-17', Statement: statements.map((s) => stack.resolve(s.toStatementJson())) };
  return JSON.stringify(resolve(document)).length;
}

/** Every CloudFormation resource under `scope` is created only where `condition` holds. */
function onlyIn(scope: IConstruct, condition: CfnCondition): void {
  for (const node of scope.node.findAll()) {
    if (node instanceof CfnResource) node.cfnOptions.condition = condition;
  }
}

/** The clusters of the configuration that run in another account, grouped by account, in config order. */
export function spokeAccountsOf(config: KarpenterDoctorConfig): SpokeAccount[] {
  const accounts = new Map<string, SpokeCluster[]>();
  for (const cluster of config.clusters) {
    if (cluster.account === undefined) continue;
    accounts.set(cluster.account, [...(accounts.get(cluster.account) ?? []), cluster]);
  }
  return [...accounts].map(([account, clusters]) => ({ account, clusters }));
}
