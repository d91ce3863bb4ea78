/**
 * The analyzer's classifier half: the pipeline after decoding (parse, classify, aggregate) with the
 * rules and vocabularies it is built from, most of the analyzer's own code. A file of its own in the
 * bundle (lib/constructs/analyzer-function.ts), loaded on the first delivery that has log events of
 * a configured cluster: a cold start, a control message, a payload that cannot be decoded and a
 * delivery from a log group no cluster lists (the account policy sends every group of the account)
 * never read or compile it.
 */
export { analyzeMessages } from '../core/analyze';
