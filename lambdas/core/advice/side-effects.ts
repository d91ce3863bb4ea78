/**
 * What a command does beyond what it names, said in the step that prints it (issue 18): node
 * replacement through drift, restarts, values Helm or GitOps put back.
 */

/** Karpenter's drift: a changed NodePool template or EC2NodeClass replaces the nodes built from the old one. */
export const DRIFT_NOTE =
  "Side effect: Karpenter treats the change as drift and replaces the nodes built from the old spec (for template fields such as taints, labels, kubelet settings and the EC2NodeClass's AMI, block devices or user data: every node of the pool), within the NodePool's disruption budgets and the pods' PDBs. Set spec.disruption.budgets (for example nodes: \"10%\") first if that is too fast.";

/** The controller restarts: provisioning pauses while the new pods start and take the lease. */
export const CONTROLLER_RESTART_NOTE =
  'Side effect: the controller pods restart; provisioning and disruption pause until the new leader holds the lease (usually under a minute).';

/** A value the Helm chart owns: kubectl changes are put back at the next upgrade or GitOps sync. */
export const HELM_OWNED_NOTE =
  'The Karpenter chart owns this setting: change it with helm upgrade --reuse-values (or in your GitOps values), since a kubectl change is undone at the next upgrade or sync. Keep --version at the installed chart version (helm list shows it), or the upgrade changes Karpenter too.';
