/**
 * What a command does beyond what it names, said in the step that prints it (issue 18): node
 * replacement through drift, restarts, values Helm or GitOps put back.
 */

/** Karpenter's drift: a changed NodePool template or EC2NodeClass replaces the nodes built from the old one. */
export const DRIFT_NOTE =
  "Side effect: Karpenter treats the change as drift and replaces the nodes built from the old spec (for template fields such as taints, labels, kubelet settings and the EC2NodeClass's AMI, block devices or user data: every node of the pool), within the NodePool's disruption budgets and the pods' PDBs. Set spec.disruption.budgets (for example nodes: \"10%\") first if that is too fast.";

/**
 * DRIFT_NOTE for Karpenter v0.32-v0.37 (karpenter.sh/v1beta1): the chart enables drift from v0.33
 * (v0.32 needs its feature gate), and NodePools have disruption budgets from v0.34 (charts, CRDs).
 */
export const V1BETA1_DRIFT_NOTE =
  "Side effect: Karpenter treats the change as drift and replaces the nodes built from the old spec (for template fields such as taints, labels, kubelet settings and the EC2NodeClass's AMI, block devices or user data: every node of the pool), within the pods' PDBs. Drift is on by default from v0.33; v0.32 drifts only with the chart's settings.featureGates.drift=true. From v0.34, set spec.disruption.budgets (for example nodes: \"10%\") first if that is too fast.";

/**
 * DRIFT_NOTE for Karpenter v0.31 and before (karpenter.sh/v1alpha5): drift is an alpha feature gate,
 * off by default, and a Provisioner has no disruption budgets (v0.31 docs, concepts/deprovisioning).
 */
export const V1ALPHA5_DRIFT_NOTE =
  'Side effect: existing nodes keep the old spec unless drift is enabled (featureGates.driftEnabled: "true" in the karpenter-global-settings ConfigMap, chart settings.featureGates.driftEnabled; off by default). With it, Karpenter replaces the drifted nodes of the Provisioner one at a time, within the pods\' PDBs; without it, replace them yourself one at a time (kubectl delete node drains a node, and Karpenter launches capacity for its pods) or let ttlSecondsUntilExpired recycle them. Provisioners have no disruption budgets.';

/** The controller restarts: provisioning pauses while the new pods start and take the lease. */
export const CONTROLLER_RESTART_NOTE =
  'Side effect: the controller pods restart; provisioning and disruption pause until the new leader holds the lease (usually under a minute).';

/** A value the Helm chart owns: kubectl changes are put back at the next upgrade or GitOps sync. */
export const HELM_OWNED_NOTE =
  'The Karpenter chart owns this setting: change it with helm upgrade --reuse-values (or in your GitOps values), since a kubectl change is undone at the next upgrade or sync. Keep --version at the installed chart version (helm list shows it), or the upgrade changes Karpenter too.';
