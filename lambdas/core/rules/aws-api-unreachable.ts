import { DOCS } from '../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'aws-api-unreachable',
    title: 'Karpenter cannot reach AWS APIs or the cluster endpoint',
    severity: 'high',
    source: 'beyond',
    family: 'aws-access',
    emittedBy: 'logs',
    recognises: 'send request failed / i/o timeout to AWS endpoints, WebIdentityErr, cluster endpoint not resolved',
  },
  recognition: {
    clauses: [
      ...anyOf(
        'send request failed',
        'request send failed',
        'webidentityerr',
        'ec2metadataerror',
        'failed to retrieve credentials',
        'unable to detect the cluster endpoint',
        'failed to resolve cluster endpoint',
        'could not find region',
        'missingregion',
        'ec2 imds',
        'requesterror:',
      ),
      ['amazonaws.com', 'i/o timeout'],
      ['amazonaws.com', 'dial tcp'],
      ['amazonaws.com', 'no such host'],
      ['amazonaws.com', 'connection refused'],
      ['amazonaws.com', 'tls handshake timeout'],
      ['amazonaws.com', 'context deadline exceeded'],
    ],
  },
  diagnose: (f) => ({
    diagnosis:
      `Karpenter cannot reach${f.all('endpoints').length ? ` ${f.list('endpoints')}` : ' AWS APIs or the cluster endpoint'}: ` +
      `requests time out or credentials cannot be fetched. In private clusters this means a missing VPC endpoint ` +
      `(sts, ec2, ssm, sqs, eks) or a security group that blocks it; elsewhere, IRSA or Pod Identity is misconfigured.`,
    remediation: [
      {
        title: 'Check the VPC endpoints of the cluster VPC',
        detail:
          'Private clusters need interface endpoints for sts, ec2, ssm and sqs, and the cluster endpoint set in the chart (settings.clusterEndpoint).',
        commands: [
          `aws eks describe-cluster --name ${f.cluster} --query 'cluster.resourcesVpcConfig'${f.region}`,
          `aws ec2 describe-vpc-endpoints --filters Name=vpc-id,Values=<vpc-id> --query 'VpcEndpoints[].ServiceName'${f.region}`,
        ],
      },
      {
        title: 'Check the controller identity',
        detail:
          'With IRSA the service account carries eks.amazonaws.com/role-arn; with Pod Identity an association exists.',
        commands: [
          'kubectl -n karpenter get serviceaccount karpenter -o yaml',
          `aws eks list-pod-identity-associations --cluster-name ${f.cluster}${f.region}`,
        ],
      },
    ],
    docs: [DOCS.privateClusters, DOCS.karpenterTroubleshooting],
  }),
  examples: {
    fires: [
      {
        line: '{"level":"ERROR","message":"failed listing instance types","error":"operation error EC2: DescribeInstanceTypes, exceeded maximum number of attempts, 3, https response error StatusCode: 0, RequestID: , request send failed, Post \\"https://ec2.us-east-1.amazonaws.com/\\": dial tcp 10.0.0.1:443: i/o timeout"}',
        source:
          "constructed from the AWS SDK for Go v2 retry error 'operation error %s: %s, exceeded maximum number of attempts, %d, … request send failed, …'",
      },
      {
        line: '2021-12-05T14:21:22.474Z        ERROR   controller.controller.metrics   Reconciler error        {"commit": "84b683b", "reconciler group": "karpenter.sh", "reconciler kind": "Provisioner", "name": "default", "namespace": "", "error": "fetching instance types using ec2.DescribeInstanceTypes, WebIdentityErr: failed to retrieve credentials\\ncaused by: RequestError: send request failed\\ncaused by: Post \\"https://sts.eu-west-1.amazonaws.com/\\": dial tcp: i/o timeout"}',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/920 (shared samples ref-002)',
      },
    ],
    silent: [
      {
        line: 'karpenter-f4d59d8ff-nvf9v controller 2022-04-22T22:55:03.625Z\tDEBUG\tcontroller\tDiscovered EC2 instance types zonal offerings\t{"commit": "64fe6ef"}',
        source: 'https://github.com/aws/karpenter-provider-aws/pull/1715 (shared samples ref-041)',
      },
    ],
  },
});
