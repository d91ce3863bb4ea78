import { DOCS } from '../../advice/docs-links';
import { hasErrorCode, karpenterNamespace, karpenterServiceAccount } from '../../advice/karpenter';
import type { RemediationStep } from '../../advice/types';
import { anyOf, defineRule } from './types';

const SDK_V1 = 'aws/aws-sdk-go@vrelease-v0.10.0';
const SDK_V2 = 'awslabs/amazon-eks-ami@v20260724:nodeadm/vendor/github.com/aws/aws-sdk-go-v2';

export default defineRule({
  info: {
    id: 'aws-credentials-unavailable',
    title: 'Karpenter has no valid AWS credentials (IRSA, Pod Identity or instance role)',
    shortTitle: 'Karpenter has no AWS credentials',
    severity: 'critical',
    source: 'beyond',
    family: 'aws-access',
    emittedBy: 'logs',
    recognises:
      'NoCredentialProviders, WebIdentityErr, failed to refresh cached credentials, no EC2 IMDS role, ExpiredToken, InvalidClientTokenId',
  },
  filterTerms: ['NoCredentialProviders', 'InvalidIdentityToken'],
  recognition: {
    clauses: [
      // EKS Pod Identity: the SDK cannot reach the agent on the node
      ...['i/o timeout', 'connection refused', 'context deadline exceeded', 'no route to host'].map((error) => [
        '169.254.170.23',
        error,
      ]),
      ...anyOf(
        // AWS SDK for Go v1 (aws/credentials, aws/ec2metadata, stscreds)
        'nocredentialproviders',
        'no valid providers in chain',
        'webidentityerr',
        'ec2rolerequesterror',
        'ec2metadataerror',
        'sharedcredsload',
        // AWS SDK for Go v2 (aws/credential_cache.go, credentials/ec2rolecreds, smithy auth)
        'failed to retrieve credentials',
        'failed to refresh cached credentials',
        'no ec2 imds role found',
        // The instance metadata service answered no role or not at all: the SDK fell back to it for want of
        // IRSA or Pod Identity credentials, a credentials problem before it is a network one.
        'request to ec2 imds failed',
        'get identity: get credentials',
        // STS and every service: the token is unknown, expired or not trusted
        'invalidclienttokenid',
        'unrecognizedclientexception',
        'expiredtoken',
        'invalididentitytoken',
        'security token included in the request is invalid',
        'security token included in the request is expired',
        // EKS Pod Identity: the agent (169.254.170.23) cannot get credentials from EKS Auth, or the SDK
        // cannot reach the agent
        'error fetching credentials',
        'unable to fetch credentials from eks auth',
        'error getting credentials to cache',
      ),
    ],
  },
  diagnose: (f) => {
    const account = karpenterServiceAccount(f);
    const namespace = account.known ? account.namespace : karpenterNamespace(f);
    const expired = hasErrorCode(f, 'ExpiredToken', 'ExpiredTokenException');
    const imds = hasErrorCode(f, 'EC2RoleRequestError', 'EC2MetadataError');
    const steps: RemediationStep[] = [
      {
        title: 'See which identity the controller pods get',
        detail:
          'With IRSA the service account carries eks.amazonaws.com/role-arn and the pod gets AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE; with EKS Pod Identity an association exists and the eks-pod-identity-agent runs. Read-only.',
        commands: [
          `kubectl -n ${namespace} get serviceaccount ${account.known ? account.name : '<karpenter-service-account>'} -o jsonpath='{.metadata.annotations}'`,
          `kubectl -n ${namespace} get pods -l app.kubernetes.io/name=karpenter -o jsonpath='{.items[0].spec.containers[0].env[*].name}'`,
          `aws eks list-pod-identity-associations --cluster-name ${f.cluster} --namespace ${namespace}${f.region}`,
        ],
      },
      {
        title: "Check the role's trust policy against the cluster's OIDC provider",
        detail:
          'For IRSA the trust policy must name the OIDC provider of this cluster and the condition sub system:serviceaccount:<namespace>:<service account>; the provider must exist in IAM.',
        commands: [
          `aws eks describe-cluster --name ${f.cluster} --query 'cluster.identity.oidc.issuer' --output text${f.region}`,
          'aws iam list-open-id-connect-providers',
          "aws iam get-role --role-name <karpenter-controller-role> --query 'Role.AssumeRolePolicyDocument'",
        ],
      },
    ];
    if (imds) {
      steps.push({
        title: 'Or give the controller its own identity instead of the instance role',
        detail:
          'The SDK fell back to the instance metadata service and found no role (or could not reach it: the IMDSv2 hop limit of 1 blocks pods). Prefer IRSA or Pod Identity for the controller over raising the hop limit of the nodes it runs on.',
        commands: [],
      });
    }
    if (expired) {
      steps.push({
        title: 'Let the pods pick up fresh credentials',
        detail:
          'An expired token that is never refreshed points at static keys in the environment or a clock far off. After fixing the identity, restart the controller: the deployment rolls one pod at a time and the leader lease moves, pausing provisioning for a few seconds.',
        commands: [`kubectl -n ${namespace} rollout restart deployment -l app.kubernetes.io/name=karpenter`],
      });
    }
    return {
      diagnosis:
        `Karpenter's AWS SDK could not obtain usable credentials${f.where('errorCodes', ':')}: the service account ` +
        `token is not trusted by the role (IRSA), no Pod Identity association applies, the instance metadata service ` +
        `gives no role, or the credentials are expired or unknown to AWS. The calls are not denied by a policy; they ` +
        `are never authenticated, so Karpenter can neither launch nor clean up instances.`,
      remediation: steps,
      docs: [DOCS.irsa, DOCS.podIdentity, DOCS.karpenterTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: 'eks-pod-identity-agent {"client-addr":"192.168.146.19:36642","cluster-name":"eks-fi-eu1-d","level":"error","msg":"Error fetching credentials: error getting credentials to cache: unable to fetch credentials from EKS Auth: operation error EKS Auth: AssumeRoleForPodIdentity, https response error StatusCode: 0, RequestID: , canceled, context canceled","operation":"AssumeRoleForPodIdentity","request-id":"","service":"EKS Auth","time":"2025-05-27T16:22:23Z"}',
        source: 'https://github.com/aws/secrets-store-csi-driver-provider-aws/issues/465 (real-lines-train train-241)',
      },
      {
        line: '{"level":"ERROR","time":"2025-05-06T07:08:09.101Z","logger":"controller","message":"Reconciler error","commit":"a1b2c3d","error":"operation error EC2: DescribeInstanceTypes, get identity: get credentials: failed to refresh cached credentials, failed to load credentials, exceeded maximum number of attempts, 3, request send failed, Get \\"http://169.254.170.23/v1/credentials\\": dial tcp 169.254.170.23:80: connect: connection refused"}',
        source:
          'constructed from AWS SDK for Go v2 container credentials provider when the EKS Pod Identity agent does not answer',
      },

      {
        line: '{"level":"ERROR","time":"2025-04-12T12:00:41.221Z","logger":"controller","message":"failed listing instance types","error":"operation error EC2: DescribeInstanceTypes, get identity: get credentials: failed to refresh cached credentials, failed to retrieve credentials, operation error STS: AssumeRoleWithWebIdentity, https response error StatusCode: 400, RequestID: 8d3a2f0c-1b7e-4b55-9c61-2f0e7a9b4c11, InvalidIdentityToken: No OpenIDConnect provider found in your account for https://oidc.eks.eu-west-1.amazonaws.com/id/7B1E3C"}',
        source: `constructed from ${SDK_V2}/aws/credential_cache.go 'failed to refresh cached credentials, %w' and credentials/stscreds`,
      },
      {
        line: '2023-06-02T08:15:10.332Z\tERROR\tcontroller.provisioner\tCould not schedule pod, getting instance types, NoCredentialProviders: no valid providers in chain. Deprecated.\n\tFor verbose messaging see aws.Config.CredentialsChainVerboseErrors\t{"commit": "d7e22b1"}',
        source: `constructed from ${SDK_V1}:aws/credentials/chain_provider.go 'NoCredentialProviders', 'no valid providers in chain'`,
      },
      {
        line: '{"level":"ERROR","time":"2025-04-12T12:01:02.004Z","logger":"controller","message":"failed getting caller identity","error":"operation error STS: GetCallerIdentity, https response error StatusCode: 403, RequestID: 4f0e, api error ExpiredToken: The security token included in the request is expired"}',
        source: 'constructed from the STS ExpiredToken error as the AWS SDK for Go v2 prints it ("api error %s: %s")',
      },
      {
        line: '{"level":"ERROR","message":"Reconciler error","error":"operation error SSM: GetParameter, get identity: get credentials: failed to refresh cached credentials, no EC2 IMDS role found, operation error ec2imds: GetMetadata, http response error StatusCode: 404, request to EC2 IMDS failed"}',
        source: `constructed from ${SDK_V2}/credentials/ec2rolecreds/provider.go 'no EC2 IMDS role found, %w'`,
      },
    ],
    silent: [
      {
        line: '{"level":"info","msg":"Storing creds in cache","cluster-name":"demo","time":"2025-05-27T16:22:23Z"}',
        source: "constructed from the EKS Pod Identity agent's healthy cache log",
      },

      {
        line: '{"level":"DEBUG","time":"2025-04-12T12:00:00.100Z","logger":"controller","message":"discovered region","region":"eu-west-1"}',
        source: 'aws/karpenter-provider-aws@v1.14.1:pkg/operator/operator.go "discovered region"',
      },
    ],
  },
});
