import {
  DescribeAutoScalingGroupsCommand,
  UpdateAutoScalingGroupCommand,
  type AutoScalingGroup,
} from '@aws-sdk/client-auto-scaling';
import { DescribeSubnetsCommand, DescribeVpcsCommand } from '@aws-sdk/client-ec2';
import { DescribeClusterCommand, DescribeNodegroupCommand, UpdateNodegroupConfigCommand } from '@aws-sdk/client-eks';
import {
  GetServiceQuotaCommand,
  ListRequestedServiceQuotaChangeHistoryByQuotaCommand,
  RequestServiceQuotaIncreaseCommand,
} from '@aws-sdk/client-service-quotas';
import { planSubnetCapacity } from '../core/plans/cidr-plan';
import { errorMessage } from '../core/common/error-message';
import { ec2QuotaFor } from '../core/advice/quota';
import { shellArg } from '../core/advice/shell';
import type { Finding } from '../core/findings/finding';
import {
  isRaiseTarget,
  planRaise,
  raiseCommands,
  resumeRaise,
  type GroupState,
  type RaiseTarget,
} from '../core/plans/group-raise';
import { eniConfigYaml, quotaTarget, type RemediationReport } from '../core/plans/remediation-plan';
import { customNetworkingSteps, newSubnetId, nodeSubnetSteps } from '../core/plans/subnet-plan';
import { quotaFollowup, raiseFollowup } from '../core/plans/apply-followup';
import type { RemediationConfig } from '../../contracts/config';
import { OPT_IN_TAG } from '../../contracts/names';
import type { ActionId, RemediationMode } from '../../contracts/remediation';
import { RAISABLE_QUOTA_CODES } from '../../contracts/quota-codes';
import type { ClusterSettings } from '../core/decode/cluster';
import { asgOptedIn, optedIn, type EnrichmentClients } from './enrich';
import type { IncidentStore } from './incident-store';

/** Mode and caps per action, from the configuration. */
export type RemediationSettings = RemediationConfig;

/** The Cluster Autoscaler's auto-discovery tag: its presence means desired capacity is the autoscaler's. */
const CLUSTER_AUTOSCALER_TAG = 'k8s.io/cluster-autoscaler/enabled';
/** A finding is acted on at most once in this window (repeats, re-notifications). */
const ACTION_WINDOW_MS = 6 * 60 * 60_000;
const OPEN_REQUEST_STATUSES = new Set(['PENDING', 'CASE_OPENED']);

/** An action that could not finish; the handler gives its once-marker back and fails, so EventBridge retries. */
export class RemediationError extends Error {
  override readonly name = 'RemediationError';
}

/**
 * Carries out the remediation actions a finding names, each in its configured mode: `off` does
 * nothing, `dry-run` reads the live state and reports the exact change, `apply` makes it, behind the
 * guards (caps, the group's maximum, the opt-in tag, the Cluster Autoscaler, one action per finding
 * or quota per window). Subnet capacity is only ever planned.
 */
export class Remediator {
  constructor(
    private readonly clients: EnrichmentClients,
    private readonly store: IncidentStore,
    private readonly settings: RemediationSettings,
    private readonly clusterSettings: (cluster: string) => ClusterSettings,
    private readonly now: () => number = Date.now,
    /** The account acted in when it is not the function's own (through its remediation role). */
    private readonly account?: string,
  ) {}

  /**
   * One entry per action of `actions` (those the incident's rule maps to) that is on. A fresh action
   * is carried out and its report kept under its once-marker; a repeat within the window does
   * nothing, except hand back a report that was kept but never published (the retry of a failed
   * publish), so each report goes out once and each change is made once. `finding` is rebuilt from
   * the incident table, never taken from an event.
   */
  async run(
    finding: Finding,
    actions: readonly ActionId[],
  ): Promise<Array<{ key: string; report: RemediationReport; repeat: boolean }>> {
    const results: Array<{ key: string; report: RemediationReport; repeat: boolean }> = [];
    for (const action of actions) {
      const mode = this.modeOf(action);
      if (mode === 'off') continue;
      const { key, windowMs } = this.onceKey(action, finding);
      let targeted = false;
      const keepTarget = async (target: RaiseTarget) => {
        await this.store.saveOnceTarget(key, target);
        targeted = true;
      };
      let outcome: RemediationReport;
      if (!(await this.store.claimOnce(key, this.now(), windowMs))) {
        const prior = await this.store.onceRecord(key);
        if (prior?.report && !prior.published)
          results.push({ key, report: prior.report as RemediationReport, repeat: true });
        if (prior?.report || !isRaiseTarget(prior?.target) || action !== 'raise-system-nodegroup') continue;
        // A change was decided and may have applied before its attempt failed: complete it, never replan.
        try {
          outcome = await this.raiseSystemNodegroup(mode, finding, { recorded: prior.target });
        } catch (error) {
          throw new RemediationError(`${action} for ${finding.findingId}: ${errorMessage(error)}`);
        }
      } else {
        try {
          outcome = await this.act(action, mode, finding, keepTarget);
        } catch (error) {
          // Nothing was changed: give the marker back for EventBridge's retry. Once a target is kept the
          // change may have applied (a timeout after the update): the retry completes it instead.
          if (!targeted) await this.store.releaseOnce(key);
          throw new RemediationError(`${action} for ${finding.findingId}: ${errorMessage(error)}`);
        }
      }
      await this.store.saveOnceReport(key, outcome, false);
      results.push({ key, report: outcome, repeat: false });
    }
    return results;
  }

  modeOf(action: ActionId): RemediationMode {
    if (action === 'raise-system-nodegroup') return this.settings.raiseSystemNodegroup.mode;
    if (action === 'request-quota-increase') return this.settings.requestQuotaIncrease.mode;
    return this.settings.planSubnetCapacity.mode;
  }

  private onceKey(action: ActionId, finding: Finding): { key: string; windowMs: number } {
    if (action === 'request-quota-increase') {
      // Per quota of the account acted in and this region: no region string from outside.
      return {
        key: `${action}#${this.account ? `${this.account}#` : ''}${this.quotaCodeOf(finding) ?? finding.findingId}`,
        windowMs: this.settings.requestQuotaIncrease.windowHours * 3_600_000,
      };
    }
    return { key: `${action}#${finding.findingId}`, windowMs: ACTION_WINDOW_MS };
  }

  private act(
    action: ActionId,
    mode: RemediationMode,
    finding: Finding,
    keepTarget: (target: RaiseTarget) => Promise<void>,
  ): Promise<RemediationReport> {
    if (action === 'raise-system-nodegroup') return this.raiseSystemNodegroup(mode, finding, { keepTarget });
    if (action === 'request-quota-increase') return this.requestQuotaIncrease(mode, finding);
    return this.planSubnets(finding);
  }

  /**
   * Raises the configured system group once per finding: the target is decided from live state and
   * kept (`keepTarget`) before the change; a retry gets it back (`recorded`), re-reads live state, and
   * completes the same change or reports it done, never raising past it.
   */
  private async raiseSystemNodegroup(
    mode: RemediationMode,
    finding: Finding,
    decided: { keepTarget?: (target: RaiseTarget) => Promise<void>; recorded?: RaiseTarget },
  ): Promise<RemediationReport> {
    const action = 'raise-system-nodegroup';
    // The target is the configured system group of the cluster, read live; never a name from an event.
    const configured = this.clusterSettings(finding.cluster);
    if (!configured.systemNodegroup && !configured.systemAutoScalingGroup) {
      const why = `no system node group is configured for cluster ${finding.cluster} (systemNodegroup or systemAutoScalingGroup)`;
      return report(finding, action, mode, 'skipped', why);
    }
    const group = configured.systemNodegroup
      ? await this.managedGroup(finding.cluster, configured.systemNodegroup)
      : await this.selfManagedGroup(configured.systemAutoScalingGroup!);
    const plan = decided.recorded
      ? resumeRaise(group, decided.recorded)
      : planRaise(group, this.settings.raiseSystemNodegroup.maxMinSize);
    const target = `${group.kind === 'managed' ? 'node group' : 'Auto Scaling group'} ${group.name}`;
    const before = { minSize: group.minSize, desiredSize: group.desiredSize, maxSize: group.maxSize };
    if (plan.minSize === undefined) {
      if (plan.done) {
        const summary = `raised the minimum of ${target} to ${group.minSize} (completed by an earlier attempt).`;
        return report(finding, action, mode, 'applied', summary, { target, before });
      }
      return report(finding, action, mode, 'skipped', `nothing to raise: ${plan.reason}`, { target, before });
    }

    const details = {
      target,
      before,
      after: { minSize: plan.minSize, desiredSize: plan.desiredSize ?? group.desiredSize, maxSize: group.maxSize },
      commands: raiseCommands(group, plan, finding.region),
    };
    const raise = `the minimum of ${target} from ${group.minSize} to ${plan.minSize}`;
    const autoscaler = group.clusterAutoscaler ? ' Desired capacity is left to the Cluster Autoscaler.' : '';
    if (mode === 'dry-run')
      return report(finding, action, mode, 'planned', `would raise ${raise}.${autoscaler}`, details);
    if (!group.optIn) {
      const why = `${target} does not carry the opt-in tag ${OPT_IN_TAG}=true; the change was not made.`;
      return report(finding, action, mode, 'skipped', why, details);
    }
    if (!decided.recorded) await decided.keepTarget?.({ minSize: plan.minSize, desiredSize: plan.desiredSize });
    if (group.kind === 'managed') {
      const response = await this.clients.eks.send(
        new UpdateNodegroupConfigCommand({
          clusterName: finding.cluster,
          nodegroupName: group.name,
          scalingConfig: { minSize: plan.minSize, maxSize: group.maxSize, desiredSize: plan.desiredSize },
          // One token per finding: the same change is the same request, whatever the group reads now.
          clientRequestToken: `${finding.findingId}-raise`,
        }),
      );
      const update = response.update?.id ?? 'submitted';
      return report(finding, action, mode, 'applied', `raised ${raise} (EKS update ${update}).${autoscaler}`, {
        ...details,
        ...raiseFollowup(group, plan, finding.region, response.update?.id),
      });
    }
    await this.clients.autoScaling.send(
      new UpdateAutoScalingGroupCommand({
        AutoScalingGroupName: group.name,
        MinSize: plan.minSize,
        DesiredCapacity: plan.desiredSize,
      }),
    );
    return report(finding, action, mode, 'applied', `raised ${raise}.${autoscaler}`, {
      ...details,
      ...raiseFollowup(group, plan, finding.region),
    });
  }

  private async managedGroup(cluster: string, name: string): Promise<GroupState> {
    const { nodegroup } = await this.clients.eks.send(
      new DescribeNodegroupCommand({ clusterName: cluster, nodegroupName: name }),
    );
    const asgNames = (nodegroup?.resources?.autoScalingGroups ?? [])
      .map((a) => a.name)
      .filter((n): n is string => Boolean(n));
    const asgs = asgNames.length ? await this.autoScalingGroups(asgNames) : [];
    return {
      kind: 'managed',
      name,
      cluster,
      minSize: nodegroup?.scalingConfig?.minSize ?? 0,
      desiredSize: nodegroup?.scalingConfig?.desiredSize ?? 0,
      maxSize: nodegroup?.scalingConfig?.maxSize ?? 0,
      optIn: optedIn(nodegroup?.tags),
      clusterAutoscaler:
        nodegroup?.tags?.[CLUSTER_AUTOSCALER_TAG] !== undefined || asgs.some((a) => hasTag(a, CLUSTER_AUTOSCALER_TAG)),
    };
  }

  private async selfManagedGroup(name: string): Promise<GroupState> {
    const [group] = await this.autoScalingGroups([name]);
    if (!group) throw new Error(`Auto Scaling group ${name} was not found`);
    return {
      kind: 'self-managed',
      name,
      minSize: group.MinSize ?? 0,
      desiredSize: group.DesiredCapacity ?? 0,
      maxSize: group.MaxSize ?? 0,
      optIn: asgOptedIn(group),
      clusterAutoscaler: hasTag(group, CLUSTER_AUTOSCALER_TAG),
    };
  }

  private async autoScalingGroups(names: string[]): Promise<AutoScalingGroup[]> {
    const response = await this.clients.autoScaling.send(
      new DescribeAutoScalingGroupsCommand({ AutoScalingGroupNames: names }),
    );
    return response.AutoScalingGroups ?? [];
  }

  /** The quota the incident's own entities point to (the instance family and error code in the log). */
  private quotaCodeOf(finding: Finding): string | undefined {
    return ec2QuotaFor(finding.entities.quotas?.[0], finding.entities.instanceTypes?.[0])?.code;
  }

  private async requestQuotaIncrease(mode: RemediationMode, finding: Finding): Promise<RemediationReport> {
    const action = 'request-quota-increase';
    const code = this.quotaCodeOf(finding);
    if (code === undefined) {
      const why =
        'the finding names no instance type, so the EC2 quota bucket is unknown; no increase is filed for a guessed one';
      return report(finding, action, mode, 'skipped', why);
    }
    if (!RAISABLE_QUOTA_CODES.includes(code)) {
      return report(finding, action, mode, 'skipped', `quota ${code} is not one this rule may raise`);
    }
    const { Quota } = await this.clients.serviceQuotas.send(
      new GetServiceQuotaCommand({ ServiceCode: 'ec2', QuotaCode: code }),
    );
    const current = Quota?.Value;
    const target = `EC2 quota ${code}${Quota?.QuotaName ? ` (${Quota.QuotaName})` : ''}`;
    if (current === undefined)
      return report(finding, action, mode, 'skipped', `the current value of ${target} could not be read`);
    const cap = this.settings.requestQuotaIncrease.maxValue;
    const desired = quotaTarget(current, cap);
    const before = { value: current };
    if (desired === undefined) {
      const why = `${target} is ${current}, already at the configured cap of ${cap}`;
      return report(finding, action, mode, 'skipped', why, { target, before });
    }
    const history = await this.clients.serviceQuotas.send(
      new ListRequestedServiceQuotaChangeHistoryByQuotaCommand({ ServiceCode: 'ec2', QuotaCode: code }),
    );
    const open = (history.RequestedQuotas ?? []).find((r) => r.Status && OPEN_REQUEST_STATUSES.has(r.Status));
    if (open) {
      const why = `a request for ${target} is already ${open.Status} (${open.Id ?? 'no id'}, desired ${open.DesiredValue ?? '?'})`;
      return report(finding, action, mode, 'skipped', why, { target, before });
    }
    const regionArg = finding.region ? ` --region ${shellArg(finding.region)}` : '';
    const details = {
      target,
      before,
      after: { value: desired },
      commands: [
        `aws service-quotas request-service-quota-increase --service-code ec2 --quota-code ${code} --desired-value ${desired}${regionArg}`,
      ],
    };
    const raise = `${target} from ${current} to ${desired}`;
    if (mode === 'dry-run') return report(finding, action, mode, 'planned', `would ask to raise ${raise}`, details);
    const { RequestedQuota } = await this.clients.serviceQuotas.send(
      new RequestServiceQuotaIncreaseCommand({ ServiceCode: 'ec2', QuotaCode: code, DesiredValue: desired }),
    );
    const request = `request ${RequestedQuota?.Id ?? 'submitted'}, ${RequestedQuota?.Status ?? 'PENDING'}`;
    return report(finding, action, mode, 'applied', `asked to raise ${raise} (${request})`, {
      ...details,
      ...quotaFollowup(RequestedQuota?.Id, code, finding.region),
    });
  }

  /** Plan only, whatever the mode: no role of the stack may associate a VPC CIDR. */
  private async planSubnets(finding: Finding): Promise<RemediationReport> {
    const action = 'plan-subnet-capacity';
    const settings = this.clusterSettings(finding.cluster);
    const { Subnets } = await this.clients.ec2.send(
      new DescribeSubnetsCommand({
        Filters: [{ Name: `tag:${settings.discoveryTagKey}`, Values: [settings.discoveryTagValue] }],
      }),
    );
    const known = [
      ...(Subnets ?? []).map((s) => ({ zone: s.AvailabilityZone, vpc: s.VpcId })),
      ...(finding.context.subnets ?? []).map((s) => ({ zone: s.availabilityZone, vpc: s.vpcId })),
    ];
    const vpcId = known.find((k) => k.vpc)?.vpc;
    if (!vpcId)
      return report(finding, action, 'dry-run', 'skipped', 'the VPC of the Karpenter subnets could not be found');
    const zones = [
      ...new Set(
        known
          .filter((k) => k.vpc === vpcId)
          .map((k) => k.zone)
          .filter((z): z is string => Boolean(z)),
      ),
    ];
    const { Vpcs } = await this.clients.ec2.send(new DescribeVpcsCommand({ VpcIds: [vpcId] }));
    const vpc = Vpcs?.[0];
    const associated = (vpc?.CidrBlockAssociationSet ?? [])
      .filter((a) => a.CidrBlockState?.State === 'associated' || a.CidrBlockState?.State === 'associating')
      .map((a) => a.CidrBlock)
      .filter((c): c is string => Boolean(c));
    const primary = vpc?.CidrBlock;
    const vpcCidrs = primary ? [primary, ...associated.filter((c) => c !== primary)] : associated;
    const plan = planSubnetCapacity({ vpcId, vpcCidrs, zones });
    const target = `VPC ${vpcId}`;
    if (plan.candidates.length === 0) {
      const why = `no secondary CIDR can be planned: ${plan.blocked}`;
      return report(finding, action, 'dry-run', 'skipped', why, { target, plan });
    }
    const clusterSg = await this.clusterSecurityGroup(finding.cluster);
    const eniConfigs = eniConfigYaml(
      plan.subnets.map((s) => ({ availabilityZone: s.availabilityZone, subnetId: newSubnetId(s.cidr) })),
      [clusterSg ?? '<cluster-security-group-id>'],
    );
    const usable = plan.subnets[0]?.usableIps ?? 0;
    const summary = `plan: associate ${plan.candidates[0]} with VPC ${vpcId} and add ${plan.subnets.length} node subnet(s) of ${usable} usable IPs each (one per zone), routed like the old ones, tagged for Karpenter last; never applied automatically`;
    const nodeSubnetOfZone = Object.fromEntries(
      (Subnets ?? [])
        .filter((s) => s.VpcId === vpcId && s.AvailabilityZone && s.SubnetId)
        .map((s) => [s.AvailabilityZone!, s.SubnetId!]),
    );
    const input = {
      plan,
      discoveryTag: { key: settings.discoveryTagKey, value: settings.discoveryTagValue },
      region: finding.region,
      nodeSubnetOfZone,
    };
    const steps = nodeSubnetSteps(input);
    return report(finding, action, 'dry-run', 'planned', summary, {
      target,
      commands: steps.map((step) => step.command),
      steps,
      alternative: {
        summary:
          'keep nodes where they are and put only pod IPs in the new subnets (VPC CNI custom networking); the subnets are then not tagged for Karpenter.',
        steps: customNetworkingSteps(input),
      },
      plan: { ...plan, eniConfigs },
    });
  }

  private async clusterSecurityGroup(cluster: string): Promise<string | undefined> {
    try {
      const { cluster: described } = await this.clients.eks.send(new DescribeClusterCommand({ name: cluster }));
      return described?.resourcesVpcConfig?.clusterSecurityGroupId;
    } catch {
      return undefined;
    }
  }
}

function hasTag(group: AutoScalingGroup, key: string): boolean {
  return (group.Tags ?? []).some((t) => t.Key === key);
}

/** A report of one action on one finding; `details` adds the target, before/after and commands. */
function report(
  finding: Finding,
  action: ActionId,
  mode: RemediationMode,
  outcome: RemediationReport['outcome'],
  summary: string,
  details: Partial<
    Pick<
      RemediationReport,
      'target' | 'before' | 'after' | 'commands' | 'steps' | 'alternative' | 'verify' | 'undo' | 'plan'
    >
  > = {},
): RemediationReport {
  return {
    schemaVersion: '1',
    findingId: finding.findingId,
    cluster: finding.cluster,
    rule: finding.rule,
    severity: finding.severity,
    action,
    mode,
    outcome,
    summary,
    commands: [],
    ...details,
  };
}
