import { EC2_ERROR_CODES } from './ec2-error-codes';
import type { Ec2ErrorCode } from './ec2-families';
import { EVENT_REASONS } from './event-reasons';
import { KARPENTER_PATTERNS, KARPENTER_TERMS } from './karpenter-terms';
import { NODE_MESSAGES } from './node-messages';
import { predicatePattern, SCHEDULER_PREDICATES } from './scheduler-predicates';

export { EC2_ERROR_CODES } from './ec2-error-codes';
export { EC2_BENIGN_REASONS } from './ec2-families';
export { EVENT_REASONS } from './event-reasons';
export { NODE_MESSAGES } from './node-messages';
export { SCHEDULER_PREDICATES } from './scheduler-predicates';
export { CONDITIONS, VALIDATION_REASONS } from './conditions';
export { KARPENTER_PATTERNS, KARPENTER_TERMS } from './karpenter-terms';

/**
 * What the closed vocabularies add to one rule's recognition: clauses of lower-case fragments (all
 * present → the rule; matched by the classifier's one automaton) and gated, linear-time patterns for
 * the terms a bare substring would over-match.
 */
export interface VocabularyTerms {
  clauses: string[][];
  patterns: Array<{ gate: string; pattern: RegExp }>;
}

const lower = (code: string): string => code.toLowerCase();
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Where an error code stands: start of the error, after `api error `, a fleet-error list separator or a wrapping comma, with an optional SDK v1 `Client.`/`Server.` prefix. */
const CODE_CONTEXT = String.raw`(?:^|\| |api error |error\(s\), |; |, |\n)(?:client\.|server\.)?`;

/** Codes that occur inside another code (AddressLimitExceeded in PrivateIpAddressLimitExceeded). */
let nestedMemo: ReadonlySet<string> | undefined;
const nested = (): ReadonlySet<string> => (nestedMemo ??= nestedCodes(EC2_ERROR_CODES.map(({ code }) => code)));

/**
 * The codes found in another code. Runs once, on first use, so not over every pair of codes: a code is nested
 * when it occurs in the list of all codes more often than the code itself is listed.
 */
function nestedCodes(codes: readonly string[]): Set<string> {
  const all = `\n${codes.map(lower).join('\n')}\n`;
  const listed = new Map<string, number>();
  for (const code of codes) listed.set(code, (listed.get(code) ?? 0) + 1);
  return new Set(codes.filter((code) => occurrences(all, lower(code)) > listed.get(code)!));
}

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + 1)) count++;
  return count;
}

/**
 * How one EC2 code is recognised: as a plain fragment; bounded on both sides when it is part of a
 * longer code; only where an error code stands (after `api error `, a fleet-error list separator or at
 * the start of the error) when it is a plain word such as `Unsupported`.
 */
function ec2Term(entry: Ec2ErrorCode): { fragments: string[]; patterns: VocabularyTerms['patterns'] } {
  const code = lower(entry.code);
  if (entry.contextOnly) {
    return {
      fragments: [],
      patterns: [{ gate: `${code}: `, pattern: new RegExp(`${CODE_CONTEXT}${escape(code)}: `) }],
    };
  }
  if (nested().has(entry.code)) {
    return {
      fragments: [],
      patterns: [{ gate: code, pattern: new RegExp(`(?:^|[^a-z0-9])${escape(code)}(?:$|[^a-z0-9.])`) }],
    };
  }
  return { fragments: [code], patterns: [] };
}

/**
 * The vocabulary terms of one rule: the EC2 codes, event reasons, node-agent messages, Karpenter
 * template terms and old kube-scheduler predicate names mapped to it.
 */
export function vocabularyFor(rule: string): VocabularyTerms {
  const fragments: string[] = [];
  const clauses: string[][] = [];
  const patterns: VocabularyTerms['patterns'] = [];
  for (const entry of EC2_ERROR_CODES) {
    if (entry.rule !== rule) continue;
    const term = ec2Term(entry);
    fragments.push(...term.fragments);
    patterns.push(...term.patterns);
  }
  for (const { reason, rule: reasonRule } of EVENT_REASONS) if (reasonRule === rule) fragments.push(lower(reason));
  for (const { fragment, rule: messageRule } of NODE_MESSAGES) if (messageRule === rule) fragments.push(fragment);
  for (const term of KARPENTER_TERMS) if (term.rule === rule) clauses.push([...term.clause]);
  for (const { rule: patternRule, gate, pattern } of KARPENTER_PATTERNS)
    if (patternRule === rule) patterns.push({ gate, pattern });
  for (const { name, rule: predicateRule } of SCHEDULER_PREDICATES)
    if (predicateRule === rule) patterns.push(predicatePattern(name));
  return { clauses: [...[...new Set(fragments)].map((fragment) => [fragment]), ...clauses], patterns };
}
