/**
 * The predicates of kube-scheduler v1.6–v1.18 by the names its failure summaries print, each mapped to
 * its rule; a name counts only with its node count, since the start-up log lists the same names.
 */
export interface SchedulerPredicate {
  name: string;
  rule: string;
}

const p = (rule: string, ...names: string[]): SchedulerPredicate[] => names.map((name) => ({ name, rule }));

export const SCHEDULER_PREDICATES: readonly SchedulerPredicate[] = [
  ...p('scheduling-insufficient-resources', 'PodFitsResources', 'PodFitsHostPorts', 'PodFitsPorts'),
  ...p('scheduling-node-selector-mismatch', 'MatchNodeSelector', 'PodFitsHost', 'CheckNodeLabelPresence'),
  ...p(
    'scheduling-untolerated-taint',
    'PodToleratesNodeTaints',
    'PodToleratesNodeNoExecuteTaints',
    'CheckNodeUnschedulable',
  ),
  ...p('scheduling-affinity-topology', 'MatchInterPodAffinity', 'CheckServiceAffinity', 'EvenPodsSpread'),
  ...p('volume-zone-conflict', 'NoVolumeZoneConflict', 'CheckVolumeBinding'),
  ...p(
    'volume-attach-limit',
    'MaxEBSVolumeCount',
    'MaxCSIVolumeCountPred',
    'MaxGCEPDVolumeCount',
    'MaxAzureDiskVolumeCount',
    'MaxCinderVolumeCount',
  ),
  ...p('node-disk-pressure', 'CheckNodeDiskPressure'),
  ...p('node-not-ready', 'CheckNodeCondition'),
];

/**
 * The summary shapes of one predicate: its name and the count of nodes it failed on after it
 * (`NoVolumeZoneConflict (7)`, v1.6-v1.8) or before it (`2 PodToleratesNodeTaints`, v1.9).
 */
export const predicatePattern = (name: string): { gate: string; pattern: RegExp } => {
  const lower = name.toLowerCase();
  return { gate: lower, pattern: new RegExp(`(?:^|[^a-z])${lower} \\(\\d+\\)|\\d ${lower}(?:$|[^a-z])`) };
};
