/**
 * The generations of Karpenter's API, oldest first: v1alpha5 (Provisioner, Machine, AWSNodeTemplate;
 * Karpenter up to v0.31), v1beta1 (NodePool, NodeClaim, EC2NodeClass; v0.32-v0.37) and v1 (v1.0 on).
 */
export const KARPENTER_APIS = ['karpenter.sh/v1alpha5', 'karpenter.sh/v1beta1', 'karpenter.sh/v1'] as const;
export type KarpenterApi = (typeof KARPENTER_APIS)[number];

/** Advice is written for v1, and stands as written for records of v1 or of no generation they show. */
export const isV1 = (api: KarpenterApi | undefined): boolean => api === undefined || api === 'karpenter.sh/v1';

/**
 * The generation a finding's records show; the newest when they show several (an upgrade under
 * way serves the new kinds already); undefined when they show none.
 */
export function karpenterApiOf(entities: { readonly karpenterApis?: readonly string[] }): KarpenterApi | undefined {
  const seen = entities.karpenterApis ?? [];
  for (let index = KARPENTER_APIS.length - 1; index >= 0; index--) {
    if (seen.includes(KARPENTER_APIS[index]!)) return KARPENTER_APIS[index];
  }
  return undefined;
}
