import { CONTROLLER_RESTART_NOTE, HELM_OWNED_NOTE } from '../../advice/side-effects';
import { helmSet } from '../../advice/controller';
import { shellArg } from '../../advice/shell';
import { FIND_CONTROLLER } from '../../advice/controller';
import { DOCS } from '../../advice/docs-links';
import type { Entities } from '../../model';
import { anyOf, defineRule } from './types';

/**
 * Only the AWS Pricing API is out of reach: every endpoint and every SDK operation the evidence names
 * is the Pricing API's, and at least one is. Karpenter's pricing controller (providers.pricing) then
 * keeps the on-demand prices built into its release and reconciles again in 12 hours; launches go on.
 * Spot prices come from EC2 (DescribeSpotPriceHistory), so an EC2 endpoint among them is not this.
 */
export function pricingOnly(entities: Entities): boolean {
  const endpoints = entities.endpoints ?? [];
  const operations = (entities.iamActions ?? []).filter((action) => !action.includes('*'));
  const named = [...endpoints.map((e) => PRICING_ENDPOINT.test(e)), ...operations.map((o) => o.startsWith('pricing:'))];
  return named.length > 0 && named.every(Boolean);
}

/** `api.pricing.<region>.amazonaws.com[.cn]`, and the older `pricing.<region>.amazonaws.com`. */
const PRICING_ENDPOINT = /^(?:api\.)?pricing\.[a-z0-9-]{1,30}\.amazonaws\.com(?:\.cn)?$/;

export default defineRule({
  info: {
    id: 'aws-api-unreachable',
    title: 'Karpenter cannot reach AWS APIs or the cluster endpoint',
    shortTitle: 'AWS APIs unreachable',
    severity: 'high',
    source: 'beyond',
    family: 'aws-access',
    emittedBy: 'logs',
    recognises: 'send request failed / i/o timeout to AWS endpoints, cluster endpoint not resolved',
  },
  filterTerms: ['timeout'],
  recognition: {
    clauses: [
      ...anyOf(
        'send request failed',
        'request send failed',
        'unable to detect the cluster endpoint',
        'failed to resolve cluster endpoint',
        'could not find region',
        'missingregion',
        'requesterror:',
      ),
      ['amazonaws.com', 'i/o timeout'],
      ['amazonaws.com', 'dial tcp'],
      ['amazonaws.com', 'no such host'],
      ['amazonaws.com', 'connection refused'],
      ['amazonaws.com', 'tls handshake timeout'],
      ['amazonaws.com', 'context deadline exceeded'],
      // The instance metadata service (region, identity document, IMDSv2 token) does not answer: hop limit
      // or a network policy; SDK v1 names it EC2MetadataRequestError
      ['169.254.169.254', 'context deadline exceeded'],
      ['169.254.169.254', 'i/o timeout'],
      ['169.254.169.254', 'connection refused'],
      ['169.254.169.254', 'no route to host'],
      ['ec2metadatarequesterror'],
      // AWS SDK for Go v2 IMDS client (Karpenter v0.3x+, nodeadm): no token, or no answer in time
      ['ec2imds', 'failed to get api token'],
      ['ec2imds', 'context deadline exceeded'],
      ['ec2imds', 'i/o timeout'],
      // A node that cannot reach the cluster's API server: VPC CNI ("error communicating with apiserver")
      // and kubelet/client-go dialling the endpoint on 443
      ['error communicating with apiserver'],
      ['unable to contact k8s api-server'],
      [':443: i/o timeout'],
      // The kubelet gets no ECR credentials for the EKS pause image: ECR or its credential helper
      // cannot be reached from a private node
      ['/eks/pause', 'no basic auth credentials'],
      // AWS SDK for Go v2 retry log (nodeadm, LogRetries): "retrying request EC2/DescribeInstances, attempt 2"
      ['retrying request ', ', attempt '],
    ],
  },
  // A Pricing API out of reach is a cost question, not an outage: Karpenter launches on built-in prices.
  severity: (entities) => (pricingOnly(entities) ? 'low' : 'high'),
  diagnose: (f) => {
    const where = f.controller();
    const ns = shellArg(where.namespace);
    const endpoints = f.all('endpoints');
    const find = where.known ? [] : [FIND_CONTROLLER];
    if (pricingOnly(f.input.entities)) {
      const named = endpoints.length ? f.list('endpoints') : f.list('iamActions');
      return {
        diagnosis:
          `Only the AWS Pricing API is out of reach (${named}); EC2 and the other APIs Karpenter launches with are not named. ` +
          `This does not stop provisioning: Karpenter keeps the on-demand prices built into its release (and reads Spot prices ` +
          `from EC2), so launches and consolidation go on with prices that may be out of date while it keeps retrying. ` +
          `The Pricing API has no VPC endpoint and is served from a few regions only (us-east-1, eu-central-1, ap-south-1, ` +
          `cn-northwest-1), so a cluster without internet egress cannot reach it; the documented fix is to tell Karpenter ` +
          `so: settings.isolatedVPC=true stops the Pricing API calls. Severity low: nothing fails to launch because of it.`,
        remediation: [
          {
            title: 'Tell Karpenter the VPC is isolated',
            detail: `With isolatedVPC Karpenter stops calling the Pricing API and uses its built-in prices. ${HELM_OWNED_NOTE} ${CONTROLLER_RESTART_NOTE}`,
            commands: [...find, ...helmSet(where, { 'settings.isolatedVPC': 'true' })],
          },
        ],
        docs: [DOCS.privateClusters, DOCS.karpenterTroubleshooting],
      };
    }
    return {
      diagnosis:
        `Karpenter cannot reach${endpoints.length ? ` ${f.list('endpoints')}` : ' AWS APIs or the cluster endpoint'}: ` +
        `requests time out or credentials cannot be fetched. In private clusters this means a missing VPC endpoint ` +
        `or a security group that blocks it; elsewhere, IRSA or Pod Identity is misconfigured.`,
      remediation: [
        {
          title: 'Do this now: check the VPC endpoints of the cluster VPC',
          detail:
            'A private cluster needs interface endpoints for ec2, ecr.api, ecr.dkr, sts, ssm, sqs (the interruption queue) and eks (eks-auth for Pod Identity), a gateway endpoint for s3 (image layers), each with private DNS and a security group that admits HTTPS from the nodes; the controller then needs settings.clusterEndpoint and settings.isolatedVPC=true (no Pricing API), and the EC2NodeClass an instanceProfile or role that needs no iam endpoint (create the instance profile yourself and set spec.instanceProfile).',
          commands: [
            `aws eks describe-cluster --name ${f.cluster} --query 'cluster.resourcesVpcConfig'${f.region}`,
            `aws ec2 describe-vpc-endpoints --filters Name=vpc-id,Values=<vpc-id> --query 'VpcEndpoints[].[ServiceName,VpcEndpointType,PrivateDnsEnabled]' --output table${f.region}`,
          ],
        },
        {
          title: 'Add the endpoints that are missing',
          detail:
            'Interface endpoints per service (repeat for each missing one), and the S3 gateway on the route tables of the node subnets.',
          commands: [
            `aws ec2 create-vpc-endpoint --vpc-id <vpc-id> --vpc-endpoint-type Interface --service-name com.amazonaws.${f.input.region ? shellArg(f.input.region) : '<region>'}.sts --subnet-ids <subnet-id> --security-group-ids <security-group-id> --private-dns-enabled${f.region}`,
            `aws ec2 create-vpc-endpoint --vpc-id <vpc-id> --vpc-endpoint-type Gateway --service-name com.amazonaws.${f.input.region ? shellArg(f.input.region) : '<region>'}.s3 --route-table-ids <route-table-id>${f.region}`,
          ],
        },
        {
          title: 'Check the controller identity',
          detail:
            'With IRSA the service account carries eks.amazonaws.com/role-arn; with Pod Identity an association exists for it.',
          commands: [
            ...find,
            `kubectl -n ${ns} get serviceaccount ${shellArg(where.deployment)} -o yaml`,
            `aws eks list-pod-identity-associations --cluster-name ${f.cluster} --namespace ${ns}${f.region}`,
          ],
        },
      ],
      docs: [DOCS.privateClusters, DOCS.karpenterTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: '{"level":"ERROR","time":"2025-05-06T07:08:09.101Z","logger":"controller","message":"failed to get region","error":"operation error ec2imds: GetRegion, canceled, context deadline exceeded"}',
        source: 'constructed from the AWS SDK for Go v2 feature/ec2/imds client error when IMDS does not answer',
      },
      {
        line: 'caused by: Get "http://169.254.169.254/latest/dynamic/instance-identity/document": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/5677 (real-lines-train train-169)',
      },
      {
        line: '2019-08-07T02:24:04.835Z [ERROR]        Failed to create client: error communicating with apiserver: Get https://100.127.0.1:443/version?timeout=32s: dial tcp 100.127.0.1:443: i/o timeout',
        source: 'https://github.com/aws/amazon-vpc-cni-k8s/issues/575 (real-lines-train train-244)',
      },
      {
        line: '2019/04/04 05:47:09 ip-10-0-10-245.ap-northeast-1.compute.internal kubelet[4454]: E0404 05:47:09.039972    4454 remote_runtime.go:96] RunPodSandbox from runtime service failed: rpc error: code = Unknown desc = Error response from daemon: Get https://602401143452.dkr.ecr.ap-northeast-1.amazonaws.com/v2/eks/pause-amd64/manifests/3.1: no basic auth credentials',
        source: 'https://github.com/kubernetes/kubernetes/issues/76125 (real-lines-train train-243)',
      },
      {
        line: '{"hostname":"ip-10-1-2-3.us-east-2.compute.internal","systemd_unit":"kubelet.service","message":"E0506 07:08:09.101234    2471 remote_runtime.go:116] \\"RunPodSandbox from runtime service failed\\" err=\\"rpc error: code = Unknown desc = failed to get sandbox image \\\\\\"602401143452.dkr.ecr.us-east-2.amazonaws.com/eks/pause:3.5\\\\\\": failed to pull image: dial tcp 52.95.1.10:443: i/o timeout\\""}',
        source:
          "constructed from kubelet remote_runtime.go 'RunPodSandbox from runtime service failed' on a private node without an ECR endpoint (dataplane record)",
      },
      {
        line: '{"level":"error","ts":"2025-05-06T07:08:09.101Z","caller":"aws/imds.go:120","msg":"EC2MetadataRequestError: failed to get EC2 instance identity document\\ncaused by: RequestError: send request failed\\ncaused by: Get \\"http://169.254.169.254/latest/dynamic/instance-identity/document\\": dial tcp 169.254.169.254:80: i/o timeout"}',
        source:
          'constructed from AWS SDK for Go v1 ec2metadata EC2MetadataRequestError (an IMDS hop limit of 1 seen from a pod)',
      },

      {
        line: '{"level":"ERROR","message":"failed listing instance types","error":"operation error EC2: DescribeInstanceTypes, exceeded maximum number of attempts, 3, https response error StatusCode: 0, RequestID: , request send failed, Post \\"https://ec2.us-east-1.amazonaws.com/\\": dial tcp 10.0.0.1:443: i/o timeout"}',
        source:
          "constructed from the AWS SDK for Go v2 retry error 'operation error %s: %s, exceeded maximum number of attempts, %d, … request send failed, …'",
      },
      {
        line: '2021-12-05T14:21:22.474Z        ERROR   controller.controller.metrics   Reconciler error        {"commit": "84b683b", "reconciler group": "karpenter.sh", "reconciler kind": "Provisioner", "name": "default", "namespace": "", "error": "fetching instance types using ec2.DescribeInstanceTypes, WebIdentityErr: failed to retrieve credentials\\ncaused by: RequestError: send request failed\\ncaused by: Post \\"https://sts.eu-west-1.amazonaws.com/\\": dial tcp: i/o timeout"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/920 (test/fixtures/karpenter-samples.jsonl ref-002)',
      },
      {
        line: '{"level":"ERROR","time":"2026-11-28T02:14:07.412Z","logger":"controller","message":"Reconciler error","commit":"6e7eab7","controller":"providers.pricing","namespace":"","name":"","reconcileID":"5f0c2f5e-8a1b-4c3d-9e7f-2a6b8c0d1e3f","error":"updating pricing, retreiving on-demand pricing data, getting pricing data, operation error Pricing: GetProducts, exceeded maximum number of attempts, 3, https response error StatusCode: 0, RequestID: , request send failed, Post \\"https://api.pricing.us-east-1.amazonaws.com/\\": dial tcp 52.94.231.18:443: i/o timeout"}',
        source:
          'constructed from aws/karpenter-provider-aws@v1.14.1:pkg/controllers/providers/pricing/controller.go ("updating pricing, %w") and pkg/providers/pricing/pricing.go ("retreiving on-demand pricing data, %w", "getting pricing data, %w") around the AWS SDK for Go v2 retry error',
      },
    ],
    silent: [
      {
        line: 'karpenter-f4d59d8ff-nvf9v controller 2022-04-22T22:55:03.625Z\tDEBUG\tcontroller\tDiscovered EC2 instance types zonal offerings\t{"commit": "64fe6ef"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/pull/1715 (test/fixtures/karpenter-samples.jsonl ref-041)',
      },
    ],
  },
});
