import { CONTROLLER_RESTART_NOTE } from '../advice/side-effects';
import { shellArg } from '../advice/shell';
import { FIND_CONTROLLER } from '../advice/controller';
import { DOCS } from '../advice/docs-links';
import { anyOf, defineRule } from './types';

export default defineRule({
  info: {
    id: 'webhook-tls-error',
    title: 'Webhook calls fail on TLS',
    severity: 'high',
    source: 'beyond',
    family: 'control-plane',
    emittedBy: 'logs',
    recognises: 'failed calling webhook, x509 certificate errors, TLS handshake errors',
  },
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
