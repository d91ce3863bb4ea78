/** The shape rules of `clusters[].poll` beyond its fields, shared by the config schema and the settings check. */
export interface PollPlacement {
  enabled?: boolean;
  endpointAccess?: 'public' | 'private';
  subnetIds?: string[];
  securityGroupIds?: string[];
}

/** What is wrong with where a poll runs, as [field, message]; empty when nothing is. */
export function pollProblems(poll: PollPlacement): Array<[field: string, message: string]> {
  const placed = poll.subnetIds !== undefined || poll.securityGroupIds !== undefined;
  if (poll.endpointAccess === 'private' && (!poll.subnetIds || !poll.securityGroupIds))
    return [
      [
        poll.subnetIds ? 'securityGroupIds' : 'subnetIds',
        'a private endpoint is polled from inside the VPC: give subnetIds (with a route to the endpoint) and securityGroupIds (allowed by the cluster security group on 443)',
      ],
    ];
  if (poll.endpointAccess !== 'private' && placed)
    return [
      ['endpointAccess', 'subnetIds and securityGroupIds are for a private endpoint: set endpointAccess to "private"'],
    ];
  return [];
}

/** Only clusters of the deploying account are polled: the access entry and the token are of its role. */
export const pollAccountProblem = (cluster: {
  name: string;
  account?: string;
  poll?: PollPlacement;
}): string | undefined =>
  cluster.poll && cluster.poll.enabled !== false && cluster.account
    ? `cluster ${cluster.name} is in account ${cluster.account}: only clusters of the deploying account can be polled`
    : undefined;
