/** A cluster is named once per account: its name and account (none for the deploying account's). */
export const clusterKey = (cluster: { readonly name: string; readonly account?: string }): string =>
  `${cluster.account ?? ''}/${cluster.name}`;

/** Whether each cluster is named once per account (a refinement of the configuration schema). */
export const clusterKeysUnique = (clusters: ReadonlyArray<{ readonly name: string; readonly account?: string }>) =>
  new Set(clusters.map(clusterKey)).size === clusters.length;
