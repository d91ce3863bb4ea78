import fc from 'fast-check';
import { DESCRIBE_CONDITION_ROW, isRecoveryEvent, mayBeDescribeRow } from '../../../lambdas/core/recognise/conditions';
import type { LogRecord } from '../../../lambdas/core/model';

describe('the cheap tests before the condition expressions', () => {
  it('mayBeDescribeRow lets through the rows of kubectl describe and stops other first words', () => {
    expect(mayBeDescribeRow('  DiskPressure     False   Mon, 01 Dec 2026   KubeletHasNoDiskPressure')).toBe(true);
    expect(mayBeDescribeRow('Ready\tUnknown ')).toBe(true);
    expect(mayBeDescribeRow('FailedScheduling | 0/7 nodes are available')).toBe(false);
    expect(mayBeDescribeRow('Reconciler error | launching nodeclaim')).toBe(false);
    expect(mayBeDescribeRow('failed launching nodeclaim')).toBe(false);
  });

  // Only a shortcut: wherever the expression matches, the test must let the text through.
  it('property: mayBeDescribeRow holds wherever DESCRIBE_CONDITION_ROW matches', () => {
    const piece = fc.constantFrom(
      ...[' ', '  ', '\t', '\u00a0', '\u2003', '\n', 'Ready', 'DiskPressure', 'Ab', 'x', 'Z', 'True', 'False'],
      ...['Unknown', 'T', '1', '-', 'é', '|'],
    );
    const texts = fc.sample(
      fc.array(piece, { maxLength: 10 }).map((pieces) => pieces.join('')),
      { numRuns: 30000, seed: 17 },
    );
    const rows = texts.filter((text) => DESCRIBE_CONDITION_ROW.test(text));
    // The generator reaches rows the expression matches, with blanks of every kind.
    expect(rows.length).toBeGreaterThan(100);
    for (const row of rows) expect(mayBeDescribeRow(row)).toBe(true);
  });

  it('property: isRecoveryEvent is the expression on the reason', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.constantFrom('RecoveredFromFailure', 'recoveredX', 'RECOVERED1', 'Recovere', 'ecovered'),
        ),
        (reason) => {
          const record = { event: { reason } } as unknown as LogRecord;
          expect(isRecoveryEvent(record)).toBe(reason.length >= 9 && /^recovered/i.test(reason));
        },
      ),
      { numRuns: 5000 },
    );
  });
});
