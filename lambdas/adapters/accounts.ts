import { AutoScalingClient } from '@aws-sdk/client-auto-scaling';
import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { AssumeRoleCommand, type STSClient } from '@aws-sdk/client-sts';
import { ENRICHMENT_ROLE_NAME, externalIdOf, ROLE_SESSION_NAME, spokeRoleArnOf } from '../../contracts/organization';
import type { EnrichmentError, FindingContext } from '../core/findings/context';
import type { ArnScope } from '../core/findings/bus-entries';
import type { ClusterSettings } from '../core/decode/cluster';
import { describeFailure, Enricher, type EnrichmentClients, type EnrichTarget } from './enrich';

/** Temporary credentials of an assumed role, as the SDK's clients take them. */
interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

export interface AccountAccessOptions {
  sts: STSClient;
  /** The spoke role to assume in every other account (`ENRICHMENT_ROLE_NAME`, `REMEDIATION_ROLE_NAME`). */
  roleName: string;
  now?: () => number;
  /** How long a failed assumption is remembered before an account is tried again. @default 60 s */
  failureTtlMs?: number;
  /** Session length asked of STS. @default 3600 s (the role's default maximum) */
  sessionSeconds?: number;
}

export type AccountClients = { ok: true; clients: EnrichmentClients } | { ok: false; error: EnrichmentError };

/** Credentials are renewed this long before they expire, so no call is signed with ones about to lapse. */
const RENEW_BEFORE_MS = 5 * 60_000;

/**
 * SDK clients in a cluster's account: the home account's own, the spoke role's elsewhere (docs/architecture.md,
 * The spoke stack), kept per account and renewed before expiry. Never throws: a failure becomes the findings'
 * enrichment error.
 */
export class AccountAccess {
  private readonly accounts = new Map<
    string,
    { clients: EnrichmentClients; credentials: () => Promise<Credentials> }
  >();
  /** Failed assumptions, kept a minute: a batch of many records of an account that denies it costs one STS call. */
  private readonly failures = new Map<string, { until: number; error: EnrichmentError }>();
  private readonly now: () => number;

  constructor(
    private readonly home: EnrichmentClients,
    private readonly options: AccountAccessOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Clients in `account` (undefined: the home account); `scope` is the function's own partition, region and account. */
  async clientsFor(account: string | undefined, scope: ArnScope | undefined): Promise<AccountClients> {
    if (!account || account === scope?.account) return { ok: true, clients: this.home };
    const failed = this.failures.get(account);
    if (failed && failed.until > this.now()) return { ok: false, error: failed.error };
    const roleArn = spokeRoleArnOf(scope?.partition ?? 'aws', account, this.options.roleName);
    if (!scope) {
      return {
        ok: false,
        error: { source: 'sts:AssumeRole', message: `${roleArn}: the function cannot tell its own account` },
      };
    }
    let entry = this.accounts.get(account);
    if (!entry) {
      const credentials = this.assumer(roleArn, externalIdOf(scope.account));
      const config = { region: scope.region, credentials, retryMode: 'standard', maxAttempts: 3 };
      entry = {
        credentials,
        clients: {
          ec2: new EC2Client(config),
          eks: new EKSClient(config),
          autoScaling: new AutoScalingClient(config),
          serviceQuotas: new ServiceQuotasClient(config),
        },
      };
      this.accounts.set(account, entry);
    }
    try {
      await entry.credentials();
      this.failures.delete(account);
      return { ok: true, clients: entry.clients };
    } catch (error) {
      const failure: EnrichmentError = { source: 'sts:AssumeRole', message: `${roleArn}: ${describeFailure(error)}` };
      this.failures.set(account, { until: this.now() + (this.options.failureTtlMs ?? 60_000), error: failure });
      return { ok: false, error: failure };
    }
  }

  /** A credentials provider that assumes `roleArn` once and again only shortly before the session ends. */
  private assumer(roleArn: string, externalId: string): () => Promise<Credentials> {
    let current: Credentials | undefined;
    let pending: Promise<Credentials> | undefined;
    return async () => {
      if (current && current.expiration.getTime() - RENEW_BEFORE_MS > this.now()) return current;
      pending ??= (async () => {
        const { Credentials: c } = await this.options.sts.send(
          new AssumeRoleCommand({
            RoleArn: roleArn,
            RoleSessionName: ROLE_SESSION_NAME,
            ExternalId: externalId,
            DurationSeconds: this.options.sessionSeconds ?? 3600,
          }),
        );
        if (!c?.AccessKeyId || !c.SecretAccessKey || !c.SessionToken) throw new Error('STS returned no credentials');
        current = {
          accessKeyId: c.AccessKeyId,
          secretAccessKey: c.SecretAccessKey,
          sessionToken: c.SessionToken,
          expiration: c.Expiration ?? new Date(this.now() + 15 * 60_000),
        };
        return current;
      })().finally(() => {
        pending = undefined;
      });
      return pending;
    };
  }
}

/** What the notifier and the headroom check need of an enrichment, whatever the accounts. */
export interface FindingEnricher {
  enrich(targets: EnrichTarget[], budgetMs: number, scope?: ArnScope): Promise<Map<string, FindingContext>>;
}

/**
 * Enrichment across accounts: findings of the home account go to the home enricher; findings of
 * another account to an enricher of its own (its own cache), reading through the spoke's read-only
 * role. When the role cannot be assumed, the findings of that account are published all the same,
 * each saying what could not be checked and why.
 */
export class AccountEnrichers<E extends FindingEnricher> implements FindingEnricher {
  private readonly enrichers = new Map<string, E>();

  constructor(
    private readonly access: AccountAccess,
    private readonly make: (clients: EnrichmentClients, account: string | undefined) => E,
  ) {}

  async enrich(targets: EnrichTarget[], budgetMs: number, scope?: ArnScope): Promise<Map<string, FindingContext>> {
    const byAccount = new Map<string, EnrichTarget[]>();
    for (const target of targets) {
      const key = target.account ?? '';
      byAccount.set(key, [...(byAccount.get(key) ?? []), target]);
    }
    const contexts = new Map<string, FindingContext>();
    await Promise.all(
      [...byAccount].map(async ([key, group]) => {
        const found = await this.enricherFor(key || undefined, scope);
        if (!found.ok) {
          for (const target of group) contexts.set(target.findingId, { enrichmentErrors: [found.error] });
          return;
        }
        for (const [id, context] of await found.enricher.enrich(group, budgetMs, scope)) contexts.set(id, context);
      }),
    );
    return contexts;
  }

  /** The enricher of `account` (undefined: home), or why there is none. */
  async enricherFor(
    account: string | undefined,
    scope: ArnScope | undefined,
  ): Promise<{ ok: true; enricher: E } | { ok: false; error: EnrichmentError }> {
    const access = await this.access.clientsFor(account, scope);
    if (!access.ok) return access;
    const key = !account || account === scope?.account ? '' : account;
    let enricher = this.enrichers.get(key);
    if (!enricher) this.enrichers.set(key, (enricher = this.make(access.clients, account)));
    return { ok: true, enricher };
  }
}

/**
 * Enrichers per account over `clients`: the home account's is `home` (or a new one), every other
 * account's reads through the spoke's read-only role (`ENRICHMENT_ROLE_NAME`).
 */
export function accountEnrichers(
  clients: EnrichmentClients & { sts: STSClient },
  options: {
    clusterSettings: (cluster: string, account: string | undefined) => ClusterSettings;
    now: () => number;
    home?: Enricher;
  },
): AccountEnrichers<Enricher> {
  return new AccountEnrichers(
    new AccountAccess(clients, { sts: clients.sts, roleName: ENRICHMENT_ROLE_NAME, now: options.now }),
    (accountClients, account) =>
      (!account && options.home) ||
      new Enricher(accountClients, {
        clusterSettings: (cluster) => options.clusterSettings(cluster, account),
        now: options.now,
      }),
  );
}
