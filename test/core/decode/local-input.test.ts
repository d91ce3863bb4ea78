import { InputReader, emptyInputStats, readInput } from '../../../lambdas/core/decode/local-input';
import type { RawMessage } from '../../../lambdas/core/parse/assemble';
import { awslogsEvent } from '../../support/awslogs';

const EVENT = {
  apiVersion: 'v1',
  kind: 'Event',
  reason: 'FailedScheduling',
  message: '0/3 nodes are available: 3 node(s) had untolerated taint {gpu: true}.',
  involvedObject: { kind: 'Pod', namespace: 'ml', name: 'trainer-0' },
};

/** The messages of lines fed one at a time, recorded as they are handed on. */
function feed(lines: string[]): { messages: RawMessage[]; after: number[] } {
  const messages: RawMessage[] = [];
  const after: number[] = [];
  const reader = new InputReader('input', emptyInputStats(), (message) => messages.push(message));
  for (const line of lines) {
    reader.line(line);
    after.push(messages.length);
  }
  reader.end();
  return { messages, after };
}

describe('InputReader', () => {
  it('hands on each object of `kubectl get events --watch -o json` as soon as it closes', () => {
    const pretty = JSON.stringify(EVENT, null, 4).split('\n');
    const { messages, after } = feed([...pretty, ...pretty]);
    expect(messages.map((m) => JSON.parse(m.message))).toEqual([EVENT, EVENT]);
    expect(after[pretty.length - 2]).toBe(0);
    expect(after[pretty.length - 1]).toBe(1);
    expect(messages[1]!.origin).toEqual({ file: 'input', line: pretty.length + 1 });
  });

  it('reads a pretty-printed awslogs event as its log events', () => {
    const lines = JSON.stringify(awslogsEvent(['no subnets found', 'another line']), null, 2).split('\n');
    expect(feed(lines).messages.map((m) => m.message)).toEqual(['no subnets found', 'another line']);
  });

  it('reads a pretty EventList and a compact one on the first line alike', () => {
    const list = { apiVersion: 'v1', kind: 'List', items: [EVENT, EVENT] };
    const pretty = feed(JSON.stringify(list, null, 2).split('\n')).messages;
    const compact = feed([JSON.stringify(list)]).messages;
    expect(pretty.map((m) => m.message)).toEqual([JSON.stringify(EVENT), JSON.stringify(EVENT)]);
    expect(compact.map((m) => m.message)).toEqual(pretty.map((m) => m.message));
  });

  it('gives back as lines a cut JSON line followed by log lines, without waiting for more', () => {
    const { messages, after } = feed([
      '{"level":"ERROR","message":"no subnets fou',
      '2026-11-28T02:20:49Z ERROR x',
      'y',
    ]);
    expect(after).toEqual([0, 2, 3]);
    expect(messages.map((m) => m.origin.line)).toEqual([1, 2, 3]);
  });

  it('reads what readInput read: lines, blank lines skipped, CRLF ends dropped', () => {
    const messages = readInput('a\r\n\n  \nb\n', 'f', emptyInputStats());
    expect(messages).toEqual([
      { message: 'a', origin: { file: 'f', line: 1 } },
      { message: 'b', origin: { file: 'f', line: 4 } },
    ]);
  });
});
