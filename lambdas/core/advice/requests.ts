import type { RemediationStep } from './types';

/**
 * Default requests for a namespace, for containers that set none. Requests only: a default memory
 * limit would cap every container that sets none and can cause the OOM kills it is meant to prevent.
 */
export function limitRangeStep(namespace: string): RemediationStep {
  return {
    title: 'Set default requests for the namespace with a LimitRange',
    detail:
      `A LimitRange gives containers without requests a default, so they are packed accurately. It sets requests only: ` +
      `a default memory limit would cap every container that sets none, and could cause OOM kills. It applies to pods ` +
      `created after it; existing pods keep their spec until they are recreated:\n` +
      `apiVersion: v1\nkind: LimitRange\nmetadata:\n  name: default-requests\n  namespace: ${namespace}\nspec:\n  limits:\n` +
      `    - type: Container\n      defaultRequest:\n        cpu: 100m\n        memory: 128Mi`,
    commands: [`kubectl -n ${namespace} get limitrange`],
  };
}
