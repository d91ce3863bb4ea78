/**
 * Whether a printed command only reads (safe to run at once) or changes something; and whether it
 * disrupts running work, which never belongs on the first screen of a notice.
 */
const READ_ONLY = [
  /^kubectl (-n \S+ )?(get|describe|logs|top|auth can-i|explain|version|api-resources|events)\b/,
  /^aws \S+ (describe|get|list|simulate|decode|lookup)-/,
  /^aws sts get-caller-identity\b/,
  /^(grep|cat|echo|jq|helm (list|get|status|history))\b/,
];
const DISRUPTIVE = [
  /^kubectl .*\b(delete|drain|cordon|replace --force|rollout restart)\b/,
  /^kubectl .*\bpatch (nodepool|nodeclaim|ec2nodeclass|node)\b/,
  /^kubectl taint .* \S+-$/,
  /^kubectl taint\b/,
  /^aws ec2 terminate-instances\b/,
];

/** Read-only when every command of a pipeline reads: `kubectl get … | grep x`. */
export function isReadOnly(command: string): boolean {
  const parts = command.split(/\s\|\s/).map((p) => p.trim());
  if (/(^|[^>])>(?!&)/.test(command.replace(/'[^']*'|"[^"]*"/g, ''))) return false;
  return parts.every((part) => READ_ONLY.some((pattern) => pattern.test(part)));
}

export const isDisruptive = (command: string): boolean => DISRUPTIVE.some((pattern) => pattern.test(command));
