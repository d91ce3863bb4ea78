import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { RecordAssembler, type RawMessage } from '../../lambdas/core/assemble';
import { worthParsingOrPlacement } from '../../lambdas/core/classify';
import type { LogRecord } from '../../lambdas/core/model';
import { loadSamples, ROOT } from '../helpers';

/**
 * Messages of a list (a subscription document's events, input.ts) have their prefilter answers
 * taken by the assembler a few messages ahead (`RecordAssembler.prefiltered`). These hold it to the
 * assembler asking the prefilter message by message: the same records, in order, and the same count
 * of skipped ones, with continuation lines joined, blank lines, describe headers, and lists changed
 * after their messages were made.
 */

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8').split('\n').filter(Boolean);
const lines = [
  ...read('examples/karpenter-controller.log'),
  ...read('examples/kubernetes-events.jsonl'),
  ...loadSamples().samples.map((sample) => sample.raw),
  '',
  '   ',
  '\tstatus code: 403, request id: 8a1f',
  'caused by: operation error EC2: CreateFleet',
  'goroutine 1 [running]:',
  'Name:         web-7d9f8c6b5-x2x9q',
  'Namespace:    default',
  '  Warning  FailedScheduling  2m    default-scheduler  0/3 nodes are available: 3 Insufficient cpu.',
  'E1105 10:00:00.000000       1 controller.go:42] failed to sync',
  'Warning FailedScheduling pod/web-1 0/3 nodes are available',
  'some healthy line',
];

interface Run {
  records: LogRecord[];
  skipped: number;
}

function assembled(messages: RawMessage[]): Run {
  const prefilter = { keep: worthParsingOrPlacement, skipped: 0 };
  const assembler = new RecordAssembler(prefilter);
  const records: LogRecord[] = [];
  for (const message of messages) {
    const record = assembler.push(message);
    if (record) records.push(record);
  }
  const last = assembler.flush();
  if (last) records.push(last);
  return { records, skipped: prefilter.skipped };
}

describe('the prefilter tested ahead on the messages of a list', () => {
  it('property: gives the records and the skipped count of the prefilter asked on each message', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...lines), { maxLength: 60 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom(...lines)), { maxLength: 4 }),
        (texts, changes) => {
          const stream = {};
          const origin = { logGroup: 'g', logStream: 's' };
          const list = texts.map((message) => ({ message }));
          const plain: RawMessage[] = texts.map((message) => ({ message, origin, stream }));
          const listed: RawMessage[] = texts.map((message, listIndex) => ({
            message,
            origin,
            stream,
            list,
            listIndex,
          }));
          // The list changed after its messages were made: their own texts are what counts.
          for (const [at, text] of changes) if (list.length > 0) list[at % list.length] = { message: text };
          expect(assembled(listed)).toEqual(assembled(plain));
        },
      ),
      { numRuns: 500 },
    );
  });
});
