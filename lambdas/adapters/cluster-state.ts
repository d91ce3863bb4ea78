import { createHash, createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider, Checksum, SourceData } from '@smithy/types';
import { type ClusterSnapshot, snapshotOf } from '../core/state';

/**
 * The poller's reading of a cluster: an EKS bearer token (what `aws eks get-token` prints) and the
 * Kubernetes API lists of the kinds the state reader needs, read with it.
 */

/** Seconds a presigned token stays valid; EKS accepts at most 15 minutes. */
const TOKEN_EXPIRES_SECONDS = 60;

/** SHA-256 and HMAC-SHA-256 for the signer, from node:crypto. */
class Sha256 implements Checksum {
  private hash;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  update(data: Uint8Array): void {
    this.hash.update(data);
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.fresh();
  }
  private fresh() {
    if (this.secret === undefined) return createHash('sha256');
    const key = typeof this.secret === 'string' ? this.secret : Buffer.from(this.secret as Uint8Array);
    return createHmac('sha256', key);
  }
}

/**
 * A bearer token for the Kubernetes API of an EKS cluster: STS GetCallerIdentity presigned with the
 * `x-k8s-aws-id` header set to the cluster name, base64url without padding, prefixed `k8s-aws-v1.`
 * (aws-iam-authenticator's token format). `stsHost` is the regional STS endpoint.
 */
export async function eksToken(
  cluster: string,
  region: string,
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider,
  now = new Date(),
  stsHost = `sts.${region}.amazonaws.com`,
): Promise<string> {
  const signer = new SignatureV4({ service: 'sts', region, credentials, sha256: Sha256, uriEscapePath: true });
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'https:',
      hostname: stsHost,
      path: '/',
      query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
      headers: { host: stsHost, 'x-k8s-aws-id': cluster },
    },
    { expiresIn: TOKEN_EXPIRES_SECONDS, signingDate: now },
  );
  const query = Object.entries(signed.query ?? {})
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
    .join('&');
  const url = `https://${stsHost}/?${query}`;
  return `k8s-aws-v1.${Buffer.from(url, 'utf8').toString('base64url')}`;
}

/** Where a cluster's API is and how to trust it (EKS DescribeCluster: endpoint, certificateAuthority.data). */
export interface KubeEndpoint {
  url: string;
  /** PEM of the cluster CA, base64 as EKS returns it; none for a plain-HTTP test server. */
  caData?: string;
}

/** A list the API refused or did not serve, named for the log and the metric. */
export class KubeReadError extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
    message: string,
  ) {
    super(`GET ${path}: ${status} ${message}`);
    this.name = 'KubeReadError';
  }
}

/** The lists a snapshot is read from; `optional` kinds may be absent (Auto Mode or not, no StorageClass access). */
export const SNAPSHOT_PATHS = [
  { path: '/apis/karpenter.sh/v1/nodeclaims', optional: false },
  { path: '/apis/karpenter.sh/v1/nodepools', optional: false },
  { path: '/apis/karpenter.k8s.aws/v1/ec2nodeclasses', optional: true },
  { path: '/apis/eks.amazonaws.com/v1/nodeclasses', optional: true },
  { path: '/api/v1/pods?fieldSelector=status.phase%3DPending', optional: false },
  { path: '/api/v1/events', optional: false },
  { path: '/apis/storage.k8s.io/v1/storageclasses', optional: true },
] as const;

/** Time allowed for one list. */
const LIST_TIMEOUT_MS = 10_000;
/** The most a list may hold; a cluster's events are the largest (about 1 KB each). */
const MAX_LIST_BYTES = 32 * 1024 * 1024;

/**
 * Reads the snapshot: every list, with the token. A missing optional kind (404) or one RBAC refuses
 * (403) is left out and reported in `skipped`; any other failure throws a KubeReadError.
 */
export async function readClusterSnapshot(
  endpoint: KubeEndpoint,
  token: string,
  now = Date.now(),
): Promise<{ snapshot: ClusterSnapshot; skipped: string[] }> {
  const documents: unknown[] = [];
  const skipped: string[] = [];
  for (const { path, optional } of SNAPSHOT_PATHS) {
    try {
      documents.push(await getJson(endpoint, path, token));
    } catch (error) {
      if (optional && error instanceof KubeReadError && (error.status === 404 || error.status === 403)) {
        skipped.push(`${path} (${error.status})`);
        continue;
      }
      throw error;
    }
  }
  return { snapshot: snapshotOf(documents, now), skipped };
}

function getJson(endpoint: KubeEndpoint, path: string, token: string): Promise<unknown> {
  const url = new URL(path, endpoint.url);
  const request = url.protocol === 'http:' ? httpRequest : httpsRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        timeout: LIST_TIMEOUT_MS,
        ...(endpoint.caData ? { ca: Buffer.from(endpoint.caData, 'base64').toString('utf8') } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_LIST_BYTES)
            req.destroy(new KubeReadError(path, 0, `list larger than ${MAX_LIST_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text) as unknown;
          } catch {
            body = undefined;
          }
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300 && body !== undefined) return resolve(body);
          const message =
            typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string'
              ? (body as { message: string }).message
              : text.slice(0, 200);
          reject(new KubeReadError(path, status, message));
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new KubeReadError(path, 0, `no answer in ${LIST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}
