/**
 * Finds which of many ASCII substrings a text contains, ASCII case ignored, in one pass: an
 * Aho–Corasick automaton with a complete row per state, so each character costs one table lookup
 * whatever the number of patterns. It stays because the classifier looks for about a thousand
 * fragments in every record (docs/BENCHMARKS.md, "Substring matcher").
 */
export class SubstringMatcher {
  /** ASCII code → symbol (letters folded to lower case); 0 for any character no pattern uses. */
  private readonly symbols = new Uint8Array(128);
  private readonly width: number;
  private automaton?: Automaton;

  constructor(readonly patterns: readonly string[]) {
    let next = 1;
    for (const pattern of patterns) {
      if (pattern.length === 0 || /[^\x00-\x7f]/.test(pattern)) {
        throw new Error(`SubstringMatcher patterns must be non-empty ASCII: ${JSON.stringify(pattern)}`);
      }
      for (const code of lowerCodes(pattern)) if (this.symbols[code] === 0) this.symbols[code] = next++;
    }
    for (let code = 65; code <= 90; code++) this.symbols[code] = this.symbols[code + 32]!;
    this.width = next;
  }

  /** True when `text` contains one of the patterns. */
  test(text: string): boolean {
    const { next, accepting } = (this.automaton ??= this.build());
    const { symbols, width } = this;
    let state = 0;
    for (let i = 0, length = text.length; i < length; i++) {
      const code = text.charCodeAt(i);
      state = next[state * width + (code < 128 ? symbols[code]! : 0)]!;
      if (accepting[state] === 1) return true;
    }
    return false;
  }

  /** Every pattern `text` contains, nested and overlapping ones included. */
  findAll(text: string): Set<string> {
    const { next, accepting, output } = (this.automaton ??= this.build());
    const { symbols, width, patterns } = this;
    const found = new Set<string>();
    let state = 0;
    for (let i = 0, length = text.length; i < length; i++) {
      const code = text.charCodeAt(i);
      state = next[state * width + (code < 128 ? symbols[code]! : 0)]!;
      if (accepting[state] === 1) for (const pattern of output[state]!) found.add(patterns[pattern]!);
    }
    return found;
  }

  /** The trie, then breadth-first each state's failure: its missing edges and outputs are its failure's. */
  private build(): Automaton {
    const width = this.width;
    const children: number[][] = [[]];
    const output: number[][] = [[]];
    this.patterns.forEach((pattern, index) => {
      let state = 0;
      for (const code of lowerCodes(pattern)) {
        const symbol = this.symbols[code]!;
        let child = children[state]![symbol];
        if (child === undefined) {
          child = children.length;
          children[state]![symbol] = child;
          children.push([]);
          output.push([]);
        }
        state = child;
      }
      output[state]!.push(index);
    });
    // Two bytes a transition while the states fit: a smaller table stays in cache.
    const next =
      children.length < 0x10000 ? new Uint16Array(children.length * width) : new Int32Array(children.length * width);
    const fail = new Int32Array(children.length);
    const queue = [0];
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      for (let symbol = 0; symbol < width; symbol++) {
        const child = children[state]![symbol];
        const viaFailure = state === 0 ? 0 : next[fail[state]! * width + symbol]!;
        if (child === undefined) {
          next[state * width + symbol] = viaFailure;
          continue;
        }
        next[state * width + symbol] = child;
        fail[child] = viaFailure;
        output[child] = [...output[child]!, ...output[viaFailure]!];
        queue.push(child);
      }
    }
    return { next, output, accepting: Uint8Array.from(output, (patterns) => (patterns.length > 0 ? 1 : 0)) };
  }
}

interface Automaton {
  /** State × symbol → next state. */
  next: Uint16Array | Int32Array;
  /** State → the indexes of the patterns that end there (its own and its suffixes'). */
  output: number[][];
  /** State → 1 when some pattern ends there. */
  accepting: Uint8Array;
}

function lowerCodes(pattern: string): number[] {
  const codes: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const code = pattern.charCodeAt(i);
    codes.push(code >= 65 && code <= 90 ? code + 32 : code);
  }
  return codes;
}
