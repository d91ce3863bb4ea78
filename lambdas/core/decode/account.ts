/**
 * Accounts in the incident model. A deployment has a home account (where its functions
 * run); clusters of other accounts of the organisation reach it through the organisation stream,
 * and every CloudWatch Logs document names its source account (`owner`). An incident belongs to
 * one cluster of one account: two clusters named `prod` in two accounts are two incidents.
 */

/** An AWS account id: twelve digits. */
const ACCOUNT_ID = /^\d{12}$/;

export const isAccountId = (value: unknown): value is string => typeof value === 'string' && ACCOUNT_ID.test(value);

/**
 * The account a CloudWatch Logs document comes from: its `owner`, when that is an account id
 * (a CONTROL_MESSAGE says `CloudwatchLogs`).
 */
export function accountOfOwner(owner: string | undefined): string | undefined {
  return isAccountId(owner) ? owner : undefined;
}

/**
 * The account that goes into an incident's key: none for the home account (and when it is not
 * known), so the finding ids of a one-account deployment are what they always were and an upgrade
 * neither reopens nor resolves anything; the account itself for every other account.
 */
export function keyAccountOf(account: string | undefined, home: string | undefined): string | undefined {
  if (!isAccountId(account) || account === home) return undefined;
  return account;
}

/**
 * One string per cluster of one account — `<account>/<cluster>`, or the bare name for the home
 * account (cluster names hold no slash) — for grouping notices and digests, keying the headroom
 * history and telling configured clusters apart.
 */
export const clusterScopeOf = (item: { cluster: string; account?: string }): string =>
  item.account ? `${item.account}/${item.cluster}` : item.cluster;
