import fc from 'fast-check';
import { automatonOf, EnvelopeScan } from '../../lambdas/core/envelope-scan';

/**
 * The envelope scan reports where patterns end in bytes, with the classes of the patterns ending
 * there: these hold it to a plain search of every pattern at every offset, on texts of every length
 * (one part, or three that overlap), with multi-byte characters, control bytes and case.
 */

/** Every end offset of every pattern in `bytes` (ASCII case ignored, any control byte for any), with classes. */
function reference(bytes: Uint8Array, patterns: string[], classes: number[]): Map<number, number> {
  const fold = (code: number) => (code < 32 ? 1 : code >= 65 && code <= 90 ? code + 32 : code);
  const found = new Map<number, number>();
  patterns.forEach((pattern, p) => {
    for (let start = 0; start + pattern.length <= bytes.length; start++) {
      let matches = true;
      for (let i = 0; i < pattern.length && matches; i++) {
        matches = fold(bytes[start + i]!) === fold(pattern.charCodeAt(i));
      }
      if (matches) {
        const end = start + pattern.length - 1;
        found.set(end, (found.get(end) ?? 0) | classes[p]!);
      }
    }
  });
  return found;
}

function scanned(scan: EnvelopeScan, bytes: Uint8Array, capacity = bytes.length + 1): Map<number, number> | undefined {
  const hits = scan.hits(bytes, capacity);
  if (!hits) return undefined;
  const found = new Map<number, number>();
  let previous = -1;
  for (let i = 0; i < hits.count; i++) {
    const position = hits.positions[i]!;
    // In order, each offset once.
    expect(position).toBeGreaterThan(previous);
    previous = position;
    found.set(position, hits.classes[i]!);
  }
  return found;
}

const PATTERNS = ['oom', 'out of memory', 'didn\\\\u0027t', '\\"quoted\\"', ',"', '"},{"id":"', '\u0001', 'Nominated'];
const CLASSES = [1, 1, 1, 1, 2, 4, 2, 1];

describe('the envelope scan', () => {
  const scan = EnvelopeScan.of(PATTERNS, CLASSES)!;

  it('finds every pattern end, with its classes, in texts of any length and content', () => {
    const piece = fc.oneof(
      fc.constantFrom(...PATTERNS, 'OOM', 'Out Of Memory', 'é', '日本', '😀', '\t', '\n', '\u001b', '"', '\\', ' '),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 120 }), (pieces) => {
        const bytes = Buffer.from(pieces.join(''), 'utf8');
        expect(scanned(scan, bytes)).toEqual(reference(bytes, PATTERNS, CLASSES));
      }),
      { numRuns: 400 },
    );
  });

  it('finds patterns that straddle the boundaries of its parts', () => {
    const longest = Math.max(...PATTERNS.map((p) => p.length));
    // Lengths around the switch to three parts, and every place of a pattern across a text of each.
    for (const length of [4 * longest - 1, 4 * longest, 4 * longest + 1, 97, 300]) {
      for (const pattern of ['out of memory', '"},{"id":"']) {
        for (let at = 0; at + pattern.length <= length; at++) {
          const text = Buffer.from('x'.repeat(at) + pattern + 'é'.repeat(length), 'utf8').subarray(0, length);
          expect(scanned(scan, text)).toEqual(reference(text, PATTERNS, CLASSES));
        }
      }
    }
  });

  it('knows patterns after multi-byte characters and across control bytes', () => {
    const text = Buffer.from('日本oom\u0000x😀out of memory"},{"id":"\u001f', 'utf8');
    expect(scanned(scan, text)).toEqual(reference(text, PATTERNS, CLASSES));
    // oom, the control byte, out of memory, the event separator, the last control byte.
    expect([...scanned(scan, text)!.keys()]).toEqual([8, 9, 27, 37, 38]);
  });

  it('gives up past its capacity', () => {
    const text = Buffer.from('oom '.repeat(200), 'utf8');
    expect(scanned(scan, text, 10)).toBeUndefined();
    expect(scanned(scan, text, 200)?.size).toBe(200);
  });

  it('grows its memory for long texts and keeps working on short ones after', () => {
    const long = Buffer.from(`${'healthy line '.repeat(200_000)}out of memory`, 'utf8');
    expect([...scanned(scan, long)!.keys()]).toEqual([long.length - 1]);
    const short = Buffer.from('oom', 'utf8');
    expect([...scanned(scan, short)!.keys()]).toEqual([2]);
  });

  it('builds complete rows whose every entry is a state', () => {
    const { table, shift, classes } = automatonOf(PATTERNS, CLASSES);
    const states = table.length >> shift;
    expect(classes.length).toBe(states);
    for (const entry of table) expect(entry < 0 ? ~entry : entry).toBeLessThan(states);
  });
});
