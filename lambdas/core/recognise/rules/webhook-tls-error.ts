import { CONTROLLER_RESTART_NOTE } from '../../advice/side-effects';
import { shellArg } from '../../advice/shell';
import { FIND_CONTROLLER } from '../../advice/controller';
import { DOCS } from '../../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'webhook-tls-error',
    title: 'Webhook calls fail on TLS',
    shortTitle: 'webhook TLS failing',
    severity: 'high',
    source: 'beyond',
    family: 'control-plane',
    emittedBy: 'logs',
    recognises: 'failed calling webhook, x509 certificate errors, TLS handshake errors',
  },
  filterTerms: ['x509'],
  recognition: {
    // A bare "http: TLS handshake error from …: EOF" is probe noise; only certificate failures count.
    clauses: anyOf(
      'failed calling webhook',
      'failed to call webhook',
      'x509:',
      'tls: bad certificate',
      'certificate signed by unknown authority',
      'certificate has expired',
      'tls: unknown certificate authority',
      // knative.dev/pkg webhook (Karpenter v0.3x-v1.x): the server has no certificate yet, the certificate
      // reconciler finds the secret without its keys ("secret %q is missing %q key"), the conversion
      // reconciler finds the CRD not pointing at the webhook ("custom resource %q isn't configured for
      // webhook conversion")
      'tls: no certificates configured',
      "isn't configured for webhook conversion",
    ),
    patterns: [
      {
        gate: 'is missing',
        pattern: /\bsecret \\?"?[a-z0-9.-]+\\?"? is missing \\?"?(?:ca-cert|server-cert|server-key)\.pem/,
      },
    ],
  },
  diagnose: (f) => {
    const where = f.controller();
    return {
      diagnosis:
        'Calls to a webhook fail on TLS (unknown authority or expired certificate). Stale Karpenter webhook configurations ' +
        'left from an upgrade, or a certificate the API server does not trust, block creating or updating Karpenter resources.',
      remediation: [
        {
          title: 'Do this now: list the webhook configurations that point at Karpenter',
          detail:
            'Configurations from older versions (Karpenter v1 serves no validating webhooks of its own) can outlive the upgrade.',
          commands: ['kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations | grep -i karpenter'],
        },
        {
          title: 'Remove stale ones and let Karpenter reissue its certificate',
          detail: `Delete only configurations your installed version no longer ships, then restart the controller. ${CONTROLLER_RESTART_NOTE}`,
          commands: [
            ...(where.known ? [] : [FIND_CONTROLLER]),
            `kubectl -n ${shellArg(where.namespace)} rollout restart deployment ${shellArg(where.deployment)}`,
          ],
        },
      ],
      docs: [DOCS.karpenterTroubleshooting],
    };
  },
  examples: {
    fires: [
      {
        line: '{ "level":"ERROR","time":"2024-11-22T09:29:59.518Z","logger":"webhook","message":"http: TLS handshake error from 10.xxx.xxx.xx:38492: tls: no certificates configured\\n","commit":"fb4d75f"}',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/7425 (real-lines-train train-159)',
      },
      {
        line: '{"level":"ERROR","time":"2024-08-21T11:51:07.926Z","logger":"webhook","message":"http: TLS handshake error from 172.33.20.216:47284: tls: no certificates configured\\n","commit":"490ef94"}',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/6820 (real-lines-train train-326)',
      },
      {
        line: '2023-05-19T20:38:13.310Z\tERROR\twebhook.ValidationWebhook\tReconcile error\t{"commit": "698f22f-dirty", "knative.dev/traceid": "24b53c0d-c181-4540-bd90-37c07c9c5259", "knative.dev/key": "karpenter/karpenter-cert", "duration": "13.593µs", "error": "secret \\"karpenter-cert\\" is missing \\"ca-cert.pem\\" key"}',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/2902 (real-lines-train train-236)',
      },
      {
        line: '{"level":"ERROR","time":"2024-10-25T00:35:33.264Z","logger":"webhook.ConversionWebhook","message":"Reconcile error","commit":"0ebc224","knative.dev/traceid":"b1ca0908-a6e2-4224-abef-1414645f7b43","knative.dev/key":"nodeclaims.karpenter.sh","duration":"108.533µs","error":"custom resource \\"nodeclaims.karpenter.sh\\" isn\'t configured for webhook conversion"}',
        source: 'https://github.com/aws/karpenter-provider-aws/issues/7276 (real-lines-train train-238)',
      },
      {
        line: '2023-09-01T10:00:00.000Z\tERROR\twebhook\thttp: TLS handshake error from 10.0.3.7:51234: tls: no certificates configured\t{"commit": "5eda5c1"}',
        source:
          "constructed from knative.dev/pkg webhook server (Karpenter v0.3x console) 'http: TLS handshake error from %s: %v'",
      },
      {
        line: '{"log":"2025-05-06T07:08:09.101234567Z stderr F {\\"level\\":\\"ERROR\\",\\"time\\":\\"2025-05-06T07:08:09.101Z\\",\\"logger\\":\\"webhook.DefaultingWebhook\\",\\"message\\":\\"Reconcile error\\",\\"commit\\":\\"a1b2c3d\\",\\"knative.dev/key\\":\\"defaulting.webhook.karpenter.k8s.aws\\",\\"error\\":\\"secret \\\\\\"karpenter-cert\\\\\\" is missing \\\\\\"server-key.pem\\\\\\" key\\"}","stream":"stderr","kubernetes":{"pod_name":"karpenter-6c9f8d7b5d-x7k2p","namespace_name":"kube-system","container_name":"controller"}}',
        source:
          "constructed from knative.dev/pkg webhook/resourcesemantics reconciler 'secret %q is missing %q key', in a Fluent Bit record",
      },
      {
        line: '{"level":"ERROR","time":"2025-05-06T07:08:09.101Z","logger":"webhook.ConversionWebhook","message":"Reconcile error","commit":"a1b2c3d","knative.dev/key":"ec2nodeclasses.karpenter.k8s.aws","error":"custom resource \\"ec2nodeclasses.karpenter.k8s.aws\\" isn\'t configured for webhook conversion"}',
        source:
          'constructed from knative.dev/pkg webhook/resourcesemantics/conversion reconciler "custom resource %q isn\'t configured for webhook conversion"',
      },

      {
        line: 'http: TLS handshake error from 10.0.3.7:41712: remote error: tls: bad certificate',
        source: "constructed from Go net/http's 'http: TLS handshake error from %s: %v' with a bad-certificate alert",
      },
      {
        line: '2022-11-17T13:09:22.957Z\tERROR\tcontroller\tReconciler error\t{"commit": "ea5dc14", "controller": "counter", "controllerGroup": "karpenter.sh", "controllerKind": "Provisioner", "Provisioner": {"name":"gp-karpenter"}, "namespace": "", "name": "gp-karpenter", "reconcileID": "61c4a81e-7129-4582-bb04-3ea764164616", "error": "Internal error occurred: failed calling webhook \\"defaulting.webhook.provisioners.karpenter.sh\\": failed to call webhook: Post \\"https://karpenter.karpenter.svc:443/default-resource?timeout=10s\\": x509: certificate signed by unknown authority (possibly because of \\"x509: ECDSA verification failure\\" while trying to verify candidate authority certificate \\"karpenter.karpenter.svc\\")"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/2876 (test/fixtures/karpenter-samples.jsonl ref-037)',
      },
    ],
    silent: [
      {
        line: '{"level":"ERROR","time":"2025-05-06T07:08:09.101Z","logger":"webhook","message":"http: TLS handshake error from 10.0.3.7:51234: EOF","commit":"a1b2c3d"}',
        source: "constructed from the same server's probe noise: a client that hangs up (no certificate problem)",
      },

      {
        line: 'http: TLS handshake error from 10.0.3.7:41712: EOF',
        source: "constructed from Go net/http's 'http: TLS handshake error from %s: %v' (probe noise)",
      },
      {
        line: '2022-01-24T14:44:59.665Z\tINFO\twebhook.WebhookCertificates\tStarted workers\t{"commit": "723b1b7"}',
        source:
          'https://github.com/aws/karpenter-provider-aws/issues/1165 (test/fixtures/karpenter-samples.jsonl ref-055)',
      },
    ],
  },
});
