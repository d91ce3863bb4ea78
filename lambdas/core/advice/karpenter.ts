import type { Facts } from './facts';
import { shellArg } from './shell';

/**
 * Where the Karpenter controller runs, from the record (the writing pod, its log stream, its service
 * account); a placeholder when nothing said so, never an assumed namespace.
 */
export function karpenterNamespace(f: Facts): string {
  const namespace = f.all('karpenterNamespaces')[0];
  return namespace ? shellArg(namespace) : '<karpenter-namespace>';
}

/** The Karpenter service account a record named (`namespace/name`), split and quoted; placeholders otherwise. */
export function karpenterServiceAccount(f: Facts): { namespace: string; name: string; known: boolean } {
  const account = f.all('serviceAccounts').find((value) => /\/karpenter(?:-controller)?$/.test(value));
  if (!account) return { namespace: karpenterNamespace(f), name: '<karpenter-service-account>', known: false };
  const [namespace, name] = account.split('/') as [string, string];
  return { namespace: shellArg(namespace), name: shellArg(name), known: true };
}

/** True when any of the record's error codes is one of `codes`. */
export const hasErrorCode = (f: Facts, ...codes: string[]): boolean =>
  f.all('errorCodes').some((code) => codes.includes(code));
