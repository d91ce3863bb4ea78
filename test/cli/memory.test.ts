import { StreamingAnalyzer } from '../../lambdas/core/analyze';
import { emptyInputStats } from '../../lambdas/core/decode/local-input';
import { readSources } from '../../bin/cli/read-sources';
import { heapGrowthOf } from '../support/heap';

const INSUFFICIENT_CPU =
  '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
const HEALTHY =
  '{"level":"INFO","time":"2026-11-30T10:00:00.000Z","logger":"controller","message":"discovered ssm parameter","controller":"nodeclass","parameter":"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id"}';

/**
 * `chunks` chunks of about `chunkChars` characters, as the CLI reads a file: healthy lines with one
 * scheduling failure each, of a pod never placed, so the analyzer holds every failure to the end.
 */
function chunksOf(chunks: number, chunkChars: number): string[] {
  const healthy = Array.from({ length: Math.ceil(chunkChars / (HEALTHY.length + 1)) }, () => HEALTHY).join('\n');
  return Array.from({ length: chunks }, (_, i) => {
    // kubectl get events -A: a table row, whose fields the parser cuts from the line itself.
    const failure = `shop   4m   Warning   FailedScheduling   pod/web-7d4b9c6f5d-${i}x   ${INSUFFICIENT_CPU}`;
    // A string built at run time, as a decoder returns it: not a literal V8 could share.
    return `${failure}\n${healthy}\n`.replace('"level"', '"level"');
  });
}

/** Bytes reachable after reading `chunks` into an analyzer that holds their failures. */
async function retainedBy(slicedMessages: boolean, chunks: string[]): Promise<number> {
  const analyzer = new StreamingAnalyzer({ cluster: 'prod', resolution: { launches: true }, slicedMessages });
  const retained = await heapGrowthOf(() =>
    readSources([{ name: '<stdin>', found: false }], analyzer, emptyInputStats(), {
      stdin: () => chunks.map((chunk) => Buffer.from(chunk)),
    }),
  );
  // Every failure is still held (none is counted yet): each keeps what it needs of its record.
  expect(analyzer.snapshot().incidents).toEqual([]);
  const analysis = analyzer.finish();
  expect(analysis.incidents.map((incident) => [incident.rule, incident.occurrences])).toEqual([
    ['scheduling-insufficient-resources', chunks.length],
  ]);
  return retained;
}

describe('what the CLI keeps of a file', () => {
  it('does not grow with the chunks its kept records were cut from', async () => {
    const chunks = chunksOf(64, 512 * 1024);
    // Once first, so that what the pipeline builds on first use (matcher tables) is not measured.
    await retainedBy(true, chunksOf(2, 1024));
    // 64 held failures, each a line of about 400 characters, cut from a 512 KiB chunk.
    const copied = await retainedBy(true, chunks);
    // The control: parsed from slices of the chunks, the same held failures keep every chunk.
    const sliced = await retainedBy(false, chunks);
    expect(sliced).toBeGreaterThan(16 * 2 ** 20);
    expect(copied).toBeLessThan(4 * 2 ** 20);
    // Not a timing: a generous ceiling for a shared machine.
  }, 60_000);
});
