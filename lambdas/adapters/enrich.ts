import {
  DescribeAutoScalingGroupsCommand,
  type AutoScalingClient,
  type AutoScalingGroup,
} from '@aws-sdk/client-auto-scaling';
import {
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  type EC2Client,
  type Filter,
  type Subnet,
} from '@aws-sdk/client-ec2';
import {
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  ListNodegroupsCommand,
  type EKSClient,
} from '@aws-sdk/client-eks';
import { GetServiceQuotaCommand, type ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { RULES, type LiveFact, type RuleId } from '../core/recognise/rules';
import {
  usableIpsOf,
  zoneTotals,
  type EnrichmentError,
  type FindingContext,
  type NodegroupFacts,
  type QuotaFacts,
  type SubnetFacts,
  type VpcFacts,
} from '../core/findings/context';
import type { ClusterSettings } from '../core/decode/cluster';
import { errorMessage } from '../core/common/error-message';
import { ec2QuotaFor } from '../core/advice/quota';
import type { Entities } from '../core/model';
import { truncate } from '../core/common/sanitize';
import { OPT_IN_TAG } from '../../contracts/names';

/** SDK clients of the enrichment; created once per execution environment and injected. */
export interface EnrichmentClients {
  ec2: EC2Client;
  eks: EKSClient;
  autoScaling: AutoScalingClient;
  serviceQuotas: ServiceQuotasClient;
}

/** A finding about to notify, as far as the enrichment is concerned. */
export interface EnrichTarget {
  findingId: string;
  rule: RuleId;
  cluster: string;
  /** The cluster's account when it is not the deployment's own. */
  account?: string;
  entities: Entities;
}

export interface EnricherOptions {
  clusterSettings: (cluster: string) => ClusterSettings;
  /** How long a Describe result is reused across warm invocations. @default 60 s */
  cacheTtlMs?: number;
  now?: () => number;
}

/** Whether the finding of `rule` reads `fact` (its module's `enrichment`). */
const reads = (rule: RuleId, fact: LiveFact): boolean => RULES[rule].enrichment?.includes(fact) === true;

/** Whether any live fact would change the finding of `rule`; others are published without a Describe call. */
export const needsEnrichment = (rule: RuleId): boolean => (RULES[rule].enrichment?.length ?? 0) > 0;

/** Whether a resolved notice of `rule` re-reads its subnets: it names them with their free IPs now. */
export const rereadsAtResolution = (rule: RuleId): boolean => reads(rule, 'subnets');

/** The default quota of IPv4 CIDR blocks per VPC, the primary included (adjustable to 50). */
export const DEFAULT_VPC_CIDR_QUOTA = 5;
/** Node groups described per cluster; more would not fit one notification anyway. */
const MAX_NODEGROUPS = 10;
const MAX_PAGES = 10;

type Result<T> = { ok: true; value: T } | { ok: false; error: EnrichmentError };

interface CacheEntry {
  expires: number;
  value: unknown;
}

/**
 * Live AWS context for findings about to notify (docs/architecture.md, One delivery, step 6). The calls of
 * one `enrich` are batched over all its findings — one DescribeSubnets for every subnet of a batch, however
 * many lines named them — and their results are cached for a short while across warm invocations. Every call
 * shares one time budget. A failed, throttled or timed-out call never fails the finding: it is listed in
 * `context.enrichmentErrors` of each finding that needed it.
 */
export class Enricher {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly cacheTtlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly clients: EnrichmentClients,
    private readonly options: EnricherOptions,
  ) {
    this.cacheTtlMs = options.cacheTtlMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Contexts by finding id, for every target (an empty context where nothing applies). */
  async enrich(targets: EnrichTarget[], budgetMs: number): Promise<Map<string, FindingContext>> {
    const signal = AbortSignal.timeout(Math.max(1, budgetMs));
    const contexts = new Map<string, FindingContext>(targets.map((t) => [t.findingId, { enrichmentErrors: [] }]));
    const clusters = [...new Set(targets.map((t) => t.cluster))];
    const subnetTargets = targets.filter((t) => reads(t.rule, 'subnets'));
    const nodegroupTargets = targets.filter((t) => reads(t.rule, 'nodegroups'));
    const quotaTargets = targets.filter((t) => reads(t.rule, 'quota'));

    await Promise.all([
      this.enrichSubnets(subnetTargets, clusters, contexts, signal),
      ...clusters.map((cluster) =>
        this.enrichNodegroups(
          nodegroupTargets.filter((t) => t.cluster === cluster),
          cluster,
          contexts,
          signal,
        ),
      ),
      this.enrichQuotas(quotaTargets, contexts, signal),
    ]);
    return contexts;
  }

  /**
   * The subnets Karpenter launches into (the discovery tag, else the EKS cluster's subnets) and their
   * VPCs, for the headroom check; a failure says what could not be read.
   */
  async karpenterSubnets(
    cluster: string,
    budgetMs: number,
  ): Promise<{ ok: true; subnets: SubnetFacts[]; vpcs: VpcFacts[] } | { ok: false; error: EnrichmentError }> {
    const signal = AbortSignal.timeout(Math.max(1, budgetMs));
    const subnets = await this.discoveredSubnets(cluster, signal);
    if (!subnets.ok) return subnets;
    const vpcIds = [...new Set(subnets.value.map((s) => s.vpcId).filter((v): v is string => Boolean(v)))];
    const vpcs = await this.vpcsById(vpcIds, signal);
    return { ok: true, subnets: subnets.value, vpcs: vpcs.ok ? vpcs.value : [] };
  }

  private async enrichSubnets(
    targets: EnrichTarget[],
    clusters: string[],
    contexts: Map<string, FindingContext>,
    signal: AbortSignal,
  ): Promise<void> {
    if (targets.length === 0) return;
    const discovered = new Map<string, Result<SubnetFacts[]>>();
    await Promise.all(
      clusters
        .filter((cluster) => targets.some((t) => t.cluster === cluster))
        .map(async (cluster) => discovered.set(cluster, await this.discoveredSubnets(cluster, signal))),
    );

    // One DescribeSubnets for every subnet named by any finding and not already known.
    const known = new Map<string, SubnetFacts>();
    for (const result of discovered.values()) if (result.ok) for (const s of result.value) known.set(s.subnetId, s);
    const named = [...new Set(targets.flatMap((t) => t.entities.subnets ?? []))];
    const byId = await this.subnetsById(
      named.filter((id) => !known.has(id)),
      signal,
    );
    if (byId.ok) for (const s of byId.value) known.set(s.subnetId, s);

    const vpcIds = [...new Set([...known.values()].map((s) => s.vpcId).filter((v): v is string => Boolean(v)))];
    const vpcs = await this.vpcsById(vpcIds, signal);

    for (const target of targets) {
      const context = contexts.get(target.findingId)!;
      const ownDiscovered = discovered.get(target.cluster);
      const subnets = new Map<string, SubnetFacts>();
      for (const id of target.entities.subnets ?? []) {
        const facts = known.get(id);
        if (facts) subnets.set(id, facts);
      }
      if (ownDiscovered?.ok) for (const s of ownDiscovered.value) subnets.set(s.subnetId, s);
      else if (ownDiscovered) addError(context, ownDiscovered.error);
      if (!byId.ok && (target.entities.subnets ?? []).some((id) => !subnets.has(id))) {
        addError(context, byId.error);
      }
      const list = [...subnets.values()].sort((a, b) => a.subnetId.localeCompare(b.subnetId));
      context.subnets = list;
      context.zones = zoneTotals(list);
      const ownVpcs = new Set(list.map((s) => s.vpcId));
      if (vpcs.ok) context.vpcs = vpcs.value.filter((v) => ownVpcs.has(v.vpcId));
      else if (ownVpcs.size > 0) addError(context, vpcs.error);
    }
  }

  /** Subnets carrying the cluster's discovery tag; the EKS cluster's own subnets when none does. */
  private async discoveredSubnets(cluster: string, signal: AbortSignal): Promise<Result<SubnetFacts[]>> {
    const settings = this.options.clusterSettings(cluster);
    const tagged = await this.cached(`subnets-tagged:${settings.discoveryTagKey}=${settings.discoveryTagValue}`, () =>
      this.attempt('ec2:DescribeSubnets', signal, async () =>
        (
          await this.describeSubnets(
            { Filters: [{ Name: `tag:${settings.discoveryTagKey}`, Values: [settings.discoveryTagValue] }] },
            signal,
          )
        ).map((subnet) => subnetFacts(subnet, true)),
      ),
    );
    if (!tagged.ok || tagged.value.length > 0) return tagged;
    const clusterSubnets = await this.cached(`cluster-subnets:${cluster}`, () =>
      this.attempt('eks:DescribeCluster', signal, async () => {
        const response = await this.clients.eks.send(new DescribeClusterCommand({ name: cluster }), {
          abortSignal: signal,
        });
        return response.cluster?.resourcesVpcConfig?.subnetIds ?? [];
      }),
    );
    if (!clusterSubnets.ok) return clusterSubnets;
    return this.subnetsById(clusterSubnets.value, signal);
  }

  private async subnetsById(ids: string[], signal: AbortSignal): Promise<Result<SubnetFacts[]>> {
    if (ids.length === 0) return { ok: true, value: [] };
    const cachedFacts = ids.map((id) => this.fromCache<SubnetFacts>(`subnet:${id}`));
    const missing = ids.filter((_, index) => cachedFacts[index] === undefined);
    const found = cachedFacts.filter((f): f is SubnetFacts => f !== undefined);
    if (missing.length === 0) return { ok: true, value: found };
    const fetched = await this.attempt('ec2:DescribeSubnets', signal, async () =>
      (await this.describeSubnets({ SubnetIds: missing.sort() }, signal)).map((subnet) => subnetFacts(subnet, false)),
    );
    if (!fetched.ok) return fetched;
    for (const facts of fetched.value) this.toCache(`subnet:${facts.subnetId}`, facts);
    return { ok: true, value: [...found, ...fetched.value] };
  }

  private async describeSubnets(
    input: { Filters?: Filter[]; SubnetIds?: string[] },
    signal: AbortSignal,
  ): Promise<Subnet[]> {
    const subnets: Subnet[] = [];
    let NextToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const response = await this.clients.ec2.send(new DescribeSubnetsCommand({ ...input, NextToken }), {
        abortSignal: signal,
      });
      subnets.push(...(response.Subnets ?? []));
      NextToken = response.NextToken;
      if (!NextToken) break;
    }
    return subnets;
  }

  private async vpcsById(ids: string[], signal: AbortSignal): Promise<Result<VpcFacts[]>> {
    if (ids.length === 0) return { ok: true, value: [] };
    return this.cached(`vpcs:${[...ids].sort().join(',')}`, () =>
      this.attempt('ec2:DescribeVpcs', signal, async () => {
        const response = await this.clients.ec2.send(new DescribeVpcsCommand({ VpcIds: ids }), { abortSignal: signal });
        return (response.Vpcs ?? []).map((vpc): VpcFacts => {
          const blocks = (vpc.CidrBlockAssociationSet ?? [])
            .filter((a) => a.CidrBlockState?.State === 'associated' || a.CidrBlockState?.State === 'associating')
            .map((a) => a.CidrBlock)
            .filter((c): c is string => Boolean(c));
          const cidrBlocks = blocks.length ? blocks : vpc.CidrBlock ? [vpc.CidrBlock] : [];
          return {
            vpcId: vpc.VpcId ?? '',
            cidrBlocks,
            cidrSlotsLeft: Math.max(0, DEFAULT_VPC_CIDR_QUOTA - cidrBlocks.length),
          };
        });
      }),
    );
  }

  private async enrichNodegroups(
    targets: EnrichTarget[],
    cluster: string,
    contexts: Map<string, FindingContext>,
    signal: AbortSignal,
  ): Promise<void> {
    if (targets.length === 0) return;
    const groups = await this.cached(`nodegroups:${cluster}`, () => this.nodegroupsOf(cluster, signal));
    for (const target of targets) {
      const context = contexts.get(target.findingId)!;
      context.nodegroups = groups.facts;
      for (const error of groups.errors) addError(context, error);
    }
  }

  private async nodegroupsOf(
    cluster: string,
    signal: AbortSignal,
  ): Promise<{ ok: boolean; facts: NodegroupFacts[]; errors: EnrichmentError[] }> {
    const settings = this.options.clusterSettings(cluster);
    const errors: EnrichmentError[] = [];
    if (settings.systemAutoScalingGroup) {
      const asgs = await this.autoScalingGroups([settings.systemAutoScalingGroup], signal);
      if (!asgs.ok) return { ok: false, facts: [], errors: [asgs.error] };
      return { ok: true, facts: asgs.value.map(selfManagedFacts), errors };
    }

    let names: string[];
    if (settings.systemNodegroup) {
      names = [settings.systemNodegroup];
    } else {
      const listed = await this.attempt('eks:ListNodegroups', signal, async () => {
        const response = await this.clients.eks.send(
          new ListNodegroupsCommand({ clusterName: cluster, maxResults: MAX_NODEGROUPS }),
          { abortSignal: signal },
        );
        return response.nodegroups ?? [];
      });
      if (!listed.ok) return { ok: false, facts: [], errors: [listed.error] };
      names = listed.value;
    }

    const described = await Promise.all(
      names.map((name) =>
        this.attempt('eks:DescribeNodegroup', signal, async () => {
          const response = await this.clients.eks.send(
            new DescribeNodegroupCommand({ clusterName: cluster, nodegroupName: name }),
            { abortSignal: signal },
          );
          const group = response.nodegroup;
          const facts: NodegroupFacts = {
            name: group?.nodegroupName ?? name,
            arn: group?.nodegroupArn,
            kind: 'managed',
            autoScalingGroups: (group?.resources?.autoScalingGroups ?? [])
              .map((a) => a.name)
              .filter((n): n is string => Boolean(n)),
            minSize: group?.scalingConfig?.minSize,
            desiredSize: group?.scalingConfig?.desiredSize,
            maxSize: group?.scalingConfig?.maxSize,
            healthIssues: (group?.health?.issues ?? []).map((i) =>
              truncate(`${i.code ?? 'Unknown'}${i.message ? `: ${i.message}` : ''}`, 200),
            ),
            remediationOptIn: optedIn(group?.tags),
          };
          return facts;
        }),
      ),
    );
    const facts: NodegroupFacts[] = [];
    for (const result of described) {
      if (result.ok) facts.push(result.value);
      else if (!errors.some((e) => e.message === result.error.message)) errors.push(result.error);
    }

    const asgNames = facts.flatMap((f) => f.autoScalingGroups);
    if (asgNames.length > 0) {
      const asgs = await this.autoScalingGroups(asgNames, signal);
      if (asgs.ok) {
        const byName = new Map(asgs.value.map((a) => [a.AutoScalingGroupName, a]));
        for (const group of facts) {
          const instances = group.autoScalingGroups
            .map((name) => byName.get(name)?.Instances?.length)
            .filter((n): n is number => n !== undefined);
          if (instances.length) group.instances = instances.reduce((a, b) => a + b, 0);
        }
      } else {
        errors.push(asgs.error);
      }
    }
    return { ok: errors.length === 0, facts, errors };
  }

  private autoScalingGroups(names: string[], signal: AbortSignal): Promise<Result<AutoScalingGroup[]>> {
    return this.attempt('autoscaling:DescribeAutoScalingGroups', signal, async () => {
      const response = await this.clients.autoScaling.send(
        new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: names, MaxRecords: 100 }),
        { abortSignal: signal },
      );
      return response.AutoScalingGroups ?? [];
    });
  }

  private async enrichQuotas(
    targets: EnrichTarget[],
    contexts: Map<string, FindingContext>,
    signal: AbortSignal,
  ): Promise<void> {
    // No instance type, no bucket: the quota is not guessed, so none is read.
    const codeOf = (t: EnrichTarget) => ec2QuotaFor(t.entities.quotas?.[0], t.entities.instanceTypes?.[0])?.code;
    targets = targets.filter((t) => codeOf(t) !== undefined);
    const codes = [...new Set(targets.map((t) => codeOf(t)!))];
    const results = new Map(
      await Promise.all(
        codes.map(
          async (code) =>
            [
              code,
              await this.cached(`quota:ec2:${code}`, () =>
                this.attempt('servicequotas:GetServiceQuota', signal, async (): Promise<QuotaFacts> => {
                  const response = await this.clients.serviceQuotas.send(
                    new GetServiceQuotaCommand({ ServiceCode: 'ec2', QuotaCode: code }),
                    { abortSignal: signal },
                  );
                  return { quotaCode: code, quotaName: response.Quota?.QuotaName, value: response.Quota?.Value };
                }),
              ),
            ] as const,
        ),
      ),
    );
    for (const target of targets) {
      const context = contexts.get(target.findingId)!;
      const result = results.get(codeOf(target)!)!;
      if (result.ok) context.quotas = [result.value];
      else addError(context, result.error);
    }
  }

  /** Runs one AWS call; any failure becomes an enrichment error that says what was not checked and why. */
  private async attempt<T>(source: string, signal: AbortSignal, call: () => Promise<T>): Promise<Result<T>> {
    try {
      return { ok: true, value: await raceAbort(call(), signal) };
    } catch (error) {
      return { ok: false, error: { source, message: describeFailure(error) } };
    }
  }

  /** Reuses a successful result for `cacheTtlMs`; failures are not cached, so the next batch tries again. */
  private async cached<T extends { ok: boolean }>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.fromCache<T>(key);
    if (hit !== undefined) return hit;
    const value = await load();
    if (value.ok) this.toCache(key, value);
    return value;
  }

  private fromCache<T>(key: string): T | undefined {
    const entry = this.cache.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.cache.delete(key);
      return undefined;
    }
    return entry.value as T;
  }

  private toCache(key: string, value: unknown): void {
    this.cache.set(key, { expires: this.now() + this.cacheTtlMs, value });
  }
}

/** Settles with the call, or rejects when the budget's signal fires first (whatever the client does with it). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

/** Adds an error unless the same call already failed the same way for this finding. */
function addError(context: FindingContext, error: EnrichmentError): void {
  const known = context.enrichmentErrors.some((e) => e.source === error.source && e.message === error.message);
  if (!known) context.enrichmentErrors.push(error);
}

function subnetFacts(subnet: Subnet, discovered: boolean): SubnetFacts {
  return {
    subnetId: subnet.SubnetId ?? '',
    availabilityZone: subnet.AvailabilityZone,
    vpcId: subnet.VpcId,
    cidrBlock: subnet.CidrBlock,
    availableIps: subnet.AvailableIpAddressCount,
    totalIps: usableIpsOf(subnet.CidrBlock),
    discovered,
  };
}

function selfManagedFacts(group: AutoScalingGroup): NodegroupFacts {
  const name = group.AutoScalingGroupName ?? '';
  return {
    name,
    arn: group.AutoScalingGroupARN,
    kind: 'self-managed',
    autoScalingGroups: [name],
    minSize: group.MinSize,
    desiredSize: group.DesiredCapacity,
    maxSize: group.MaxSize,
    instances: group.Instances?.length,
    remediationOptIn: asgOptedIn(group),
  };
}

/** A managed node group (tags as a map) carries the remediation opt-in tag. */
export const optedIn = (tags: Record<string, string> | undefined): boolean => tags?.[OPT_IN_TAG] === 'true';

/** An Auto Scaling group (tags as a list) carries the remediation opt-in tag. */
export const asgOptedIn = (group: AutoScalingGroup): boolean =>
  (group.Tags ?? []).some((t) => t.Key === OPT_IN_TAG && t.Value === 'true');

const THROTTLING = new Set(['RequestLimitExceeded', 'ThrottlingException', 'Throttling', 'TooManyRequestsException']);

/** A short, log-free account of why a call failed: throttled, denied, out of time, or the API's own words. */
export function describeFailure(error: unknown): string {
  // Duck-typed: a DOMException from the abort signal is not always an Error of this realm.
  const name = typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '';
  if (THROTTLING.has(name)) return `throttled by AWS (${name}) after the SDK's retries; not checked`;
  if (name === 'AbortError' || name === 'TimeoutError') return 'the enrichment time budget ran out; not checked';
  if (name === 'AccessDeniedException' || name === 'UnauthorizedOperation' || name === 'AccessDenied') {
    return `access denied (${name}); the analyzer role may lack this permission`;
  }
  const message = errorMessage(error);
  return truncate(name && !message.startsWith(name) ? `${name}: ${message}` : message, 300);
}
