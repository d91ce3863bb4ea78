import { execFileSync } from 'node:child_process';
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The Kubernetes side of a polled cluster on loopback: a certificate for the stub API server, an EKS
 * endpoint that tells where that server is, and the check the API server makes of a bearer token.
 */

/** A key and a self-signed certificate for 127.0.0.1 (PEM), made with openssl for this run. */
export function loopbackCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'karpenter-doctor-kube-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
        ...['-subj', '/CN=kubernetes', '-addext', 'subjectAltName=IP:127.0.0.1'],
        ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      ],
      { stdio: 'pipe' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ClusterEndpoint {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * An EKS endpoint on loopback that passes every request through to the emulator and answers
 * DescribeCluster with the emulator's cluster, its `endpoint` and `certificateAuthority.data` those of
 * the API server given (moto makes up a host name and random CA data that nothing can connect to). A
 * function gets it as `AWS_ENDPOINT_URL_EKS`, so the poller finds the server as it would in AWS.
 */
export async function clusterEndpoint(upstream: string, api: { url: string; caPem: string }): Promise<ClusterEndpoint> {
  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => response.writeHead(502).end(String(error)));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const forwarded = await fetch(`${upstream}${request.url ?? '/'}`, {
      method: request.method,
      headers: Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => name !== 'host' && name !== 'content-length') as Array<
          [string, string]
        >,
      ),
      body: body.length > 0 ? body : undefined,
    });
    let answer = Buffer.from(await forwarded.arrayBuffer());
    if (request.method === 'GET' && /^\/clusters\/[^/?]+$/.test(request.url ?? '') && forwarded.ok) {
      const described = JSON.parse(answer.toString('utf8')) as { cluster: Record<string, unknown> };
      described.cluster.endpoint = api.url;
      described.cluster.certificateAuthority = { data: Buffer.from(api.caPem, 'utf8').toString('base64') };
      answer = Buffer.from(JSON.stringify(described), 'utf8');
    }
    response.writeHead(forwarded.status, {
      'content-type': forwarded.headers.get('content-type') ?? 'application/json',
    });
    response.end(answer);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What the API server's authenticator found in a bearer token; `problems` is empty for a valid one. */
export interface TokenCheck {
  problems: string[];
  /** The access key id the token was signed with. */
  accessKeyId?: string;
}

/**
 * The check EKS's authenticator (aws-iam-authenticator) makes of a `k8s-aws-v1.` token before it asks
 * STS who signed it: a presigned STS GetCallerIdentity URL on the region's STS host, signing the
 * `x-k8s-aws-id` header with the cluster's name, not expired at `now`. Where AWS then has STS check
 * the signature, this computes it from the secret of the credentials given (the function's).
 */
export async function checkEksToken(
  authorization: string,
  expected: { cluster: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } },
  now: number,
): Promise<TokenCheck> {
  const problems: string[] = [];
  const token = authorization.replace(/^Bearer /, '');
  if (!token.startsWith('k8s-aws-v1.')) return { problems: ['not a k8s-aws-v1 token'] };
  const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
  const query = Object.fromEntries(url.searchParams);
  const stsHost = `sts.${expected.region}.amazonaws.com`;
  if (url.protocol !== 'https:' || url.host !== stsHost || url.pathname !== '/')
    problems.push(`not a URL of ${stsHost}`);
  if (query.Action !== 'GetCallerIdentity' || query.Version !== '2011-06-15') problems.push('not GetCallerIdentity');
  const signedHeaders = (query['X-Amz-SignedHeaders'] ?? '').split(';');
  if (!signedHeaders.includes('x-k8s-aws-id')) problems.push('x-k8s-aws-id is not signed');
  const [accessKeyId, , region, service] = (query['X-Amz-Credential'] ?? '').split('/');
  if (region !== expected.region || service !== 'sts') problems.push('not signed for STS of the region');
  const signedAt = Date.parse(
    (query['X-Amz-Date'] ?? '').replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'),
  );
  const expires = Number(query['X-Amz-Expires']);
  if (!(expires > 0 && expires <= 900)) problems.push(`X-Amz-Expires ${query['X-Amz-Expires']} is not 1-900`);
  if (!(now >= signedAt - 60_000 && now <= signedAt + expires * 1000)) problems.push('expired or not yet valid');
  if (problems.length) return { problems, accessKeyId };

  const signature = sigV4Signature(
    query,
    signedHeaders,
    { host: stsHost, 'x-k8s-aws-id': expected.cluster },
    {
      secretAccessKey: expected.credentials.secretAccessKey,
      region: expected.region,
    },
  );
  if (accessKeyId !== expected.credentials.accessKeyId || signature !== query['X-Amz-Signature'])
    problems.push(`not signed by ${expected.credentials.accessKeyId} for cluster ${expected.cluster}`);
  return { problems, accessKeyId };
}

/**
 * The Signature Version 4 signature STS computes for a presigned GET of `/` (AWS General Reference,
 * "Create a signed AWS API request"), written out step by step rather than with the SDK's signer:
 * canonical request, string to sign, derived key.
 */
function sigV4Signature(
  query: Record<string, string>,
  signedHeaders: string[],
  headers: Record<string, string>,
  key: { secretAccessKey: string; region: string },
): string {
  const encode = (text: string) =>
    encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = Object.entries(query)
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [encode(name), encode(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const canonicalHeaders = [...signedHeaders]
    .sort()
    .map((name) => `${name}:${(headers[name] ?? '').trim()}\n`)
    .join('');
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
  const canonicalRequest = ['GET', '/', canonicalQuery, canonicalHeaders, signedHeaders.join(';'), sha256('')].join(
    '\n',
  );
  const amzDate = query['X-Amz-Date'] ?? '';
  const scope = `${amzDate.slice(0, 8)}/${key.region}/sts/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const hmac = (secret: Buffer | string, text: string) => createHmac('sha256', secret).update(text, 'utf8').digest();
  let signingKey = hmac(`AWS4${key.secretAccessKey}`, amzDate.slice(0, 8));
  for (const part of [key.region, 'sts', 'aws4_request']) signingKey = hmac(signingKey, part);
  return createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
}
