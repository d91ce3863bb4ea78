import fc from 'fast-check';
import { emptyTextInfo, linesOf } from '../../bin/cli/text-input';

async function* chunked(chunks: string[]): AsyncGenerator<string> {
  for (const chunk of chunks) yield chunk;
}

async function split(chunks: string[]): Promise<{ lines: string[]; cut: number }> {
  const info = emptyTextInfo();
  const lines: string[] = [];
  for await (const batch of linesOf(chunked(chunks), info)) lines.push(...batch);
  return { lines, cut: info.cutLines };
}

/** `text` cut into chunks at the given offsets. */
const cutAt = (text: string, offsets: number[]): string[] => {
  const points = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(text.slice(from, point));
    from = point;
  }
  chunks.push(text.slice(from));
  return chunks.filter(Boolean);
};

describe('linesOf', () => {
  it('gives the lines of the whole text, however it is cut into chunks', async () => {
    const text = fc
      .array(fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('\n', '\r\n', '\n\n', 'é€😀')), { maxLength: 40 })
      .map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(text, fc.array(fc.nat(), { maxLength: 12 }), async (whole, offsets) => {
        const expected = whole.split('\n');
        if (expected[expected.length - 1] === '') expected.pop();
        expect(await split(cutAt(whole, offsets))).toEqual({ lines: expected, cut: 0 });
      }),
      { numRuns: 2000 },
    );
  });
});
