import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule } from './types';

const SDK_V2_RETRY = 'awslabs/amazon-eks-ami@v20260724:nodeadm/vendor/github.com/aws/aws-sdk-go-v2/aws/retry';

export default defineRule({
  info: {
    id: 'aws-api-throttled',
    title: "AWS throttles Karpenter's API calls",
    shortTitle: 'AWS throttling Karpenter',
    severity: 'medium',
    source: 'beyond',
    family: 'aws-access',
    emittedBy: 'logs',
    recognises:
      'RequestLimitExceeded, Throttling "Rate exceeded", ThrottlingException, SDK retries exhausted on them, retry quota exceeded',
  },
  filterTerms: ['LimitExceeded'],
  recognition: {
    clauses: [
      // the AWS SDK's throttle error codes (aws/retry DefaultThrottleErrorCodes) that EC2, SSM, IAM, STS, SQS and pricing send
      ...anyOf(
        'requestlimitexceeded',
        'request limit exceeded',
        'throttlingexception',
        'throttling: rate exceeded',
        'api error throttling',
        'requestthrottled',
        'toomanyrequestsexception',
        'ec2throttledexception',
        // the v2 SDK's client-side retry token bucket ran dry: retries of throttled or failing calls
        'retry quota exceeded',
      ),
      ['exceeded maximum number of attempts', 'throttl'],
    ],
  },
  diagnose: (f) => ({
    diagnosis:
      `AWS is throttling Karpenter${f.where('iamActions', ':')}${f.paren('errorCodes')}. EC2 limits API requests per account and Region, shared by every ` +
      `caller in the account (other controllers, CI, scripts), so launches and terminations are delayed or fail ` +
      `after the SDK's retries. It is not a capacity or quota problem: more instances are allowed, just not this fast.`,
    remediation: [
      {
        title: 'Find who else calls the same APIs',
        detail:
          'CloudTrail shows the callers of EC2 in the account; a busy neighbour (another autoscaler, a tag sync, a monitoring tool) shares the same request bucket. Read-only.',
        commands: [
          `aws cloudtrail lookup-events --lookup-attributes AttributeKey=EventSource,AttributeValue=ec2.amazonaws.com --max-results 50 --query 'Events[].[EventTime,EventName,Username]' --output table${f.region}`,
        ],
      },
      {
        title: "Reduce Karpenter's own call rate",
        detail:
          'Do not restart the controller: a restart re-lists everything and adds calls. Fewer, larger batches (settings batchMaxDuration / batchIdleDuration), fewer NodePools with overlapping instance types and less churn from consolidation lower the rate; if the account needs more, ask AWS Support for a higher EC2 API rate limit.',
        commands: [],
      },
    ],
    docs: [DOCS.ec2Throttling, DOCS.karpenterTroubleshooting],
  }),
  examples: {
    fires: [
      {
        line: '{"level":"ERROR","time":"2025-04-12T12:30:11.902Z","logger":"controller","message":"failed launching nodeclaim","NodeClaim":{"name":"batch-m2x8r"},"error":"creating instance, operation error EC2: CreateFleet, exceeded maximum number of attempts, 3, https response error StatusCode: 503, RequestID: 6f1b, api error RequestLimitExceeded: Request limit exceeded."}',
        source: `constructed from ${SDK_V2_RETRY}/retryable_error.go 'exceeded maximum number of attempts, %d, %v' and the EC2 RequestLimitExceeded code (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html)`,
      },
      {
        line: '2023-03-20T16:42:09.117Z\tERROR\tcontroller.interruption\tgetting messages from queue, ThrottlingException: Rate exceeded\n\tstatus code: 400, request id: 0b6c\t{"commit": "5a7faa0"}',
        source:
          'constructed from the AWS SDK for Go v1 error format "%s: %s\\n\\tstatus code: %d, request id: %s" with the ThrottlingException code',
      },
      {
        line: '{"level":"ERROR","message":"Reconciler error","controller":"nodeclass","error":"getting amis, operation error SSM: GetParameter, failed to get rate limit token, retry quota exceeded, 0 available, 5 requested"}',
        source: `constructed from ${SDK_V2_RETRY}/errors.go 'retry quota exceeded, %d available, %d requested'`,
      },
    ],
    silent: [
      {
        line: '{"level":"INFO","time":"2025-04-12T12:30:12.000Z","logger":"controller","message":"launched nodeclaim","NodeClaim":{"name":"batch-m2x8r"},"provider-id":"aws:///eu-west-1a/i-0a1b2c3d4e5f60718","instance-type":"c6i.2xlarge","zone":"eu-west-1a","capacity-type":"spot"}',
        source: 'kubernetes-sigs/karpenter@v1.14.1:pkg/controllers/nodeclaim/lifecycle/launch.go "launched nodeclaim"',
      },
    ],
  },
});
