import type { RemediationStep } from './types';

/** Default requests for a namespace, for containers that set none. */
export function limitRangeStep(namespace: string): RemediationStep {
  return {
    title: 'Set default requests for the namespace with a LimitRange',
    detail:
      `A LimitRange gives containers without requests a default, so they are packed accurately:\n` +
      `apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: default-requests\n  namespace: ${namespace}\nspec:\n  limits:\n` +
      `    - type: Container\n      defaultRequest:\n        cpu: 100m\n        memory: 128Mi\n      default:\n        memory: 512Mi`,
    commands: [`kubectl -n ${namespace} get limitrange`],
  };
}
