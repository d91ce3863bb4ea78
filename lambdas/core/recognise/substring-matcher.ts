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
  private indexes?: Map<string, number>;

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
    const { next } = (this.automaton ??= this.build());
    const symbols = this.symbols;
    let row = 0;
    for (let i = 0, length = text.length; i < length; i++) {
      const code = text.charCodeAt(i);
      row = next[row + (code < 128 ? symbols[code]! : 0)]!;
      if (row < 0) return true;
    }
    return false;
  }

  /** Every pattern `text` contains, nested and overlapping ones included, each once. */
  findAll(text: string): Found {
    const automaton = (this.automaton ??= this.build());
    const { next, output, added } = automaton;
    const { symbols, width } = this;
    const indexes: number[] = [];
    // Each pattern is added on its first sighting in this text: `added` holds the visit that added it.
    const visit = (automaton.visit = automaton.visit === 0xffffffff ? 1 : automaton.visit + 1);
    if (visit === 1) added.fill(0);
    let row = 0;
    for (let i = 0, length = text.length; i < length; i++) {
      const code = text.charCodeAt(i);
      row = next[row + (code < 128 ? symbols[code]! : 0)]!;
      if (row < 0) {
        row = ~row;
        const ending = output[row / width]!;
        for (let k = 0; k < ending.length; k++) {
          const pattern = ending[k]!;
          if (added[pattern] !== visit) {
            added[pattern] = visit;
            indexes.push(pattern);
          }
        }
      }
    }
    return new Found(this, indexes);
  }

  /** The index of `pattern` in `patterns`, or -1. */
  indexOf(pattern: string): number {
    return (this.indexes ??= new Map(this.patterns.map((p, index) => [p, index]))).get(pattern) ?? -1;
  }

  /**
   * The trie, then breadth-first each state's failure: its missing edges and outputs are its
   * failure's. States are numbered in that order, so the shallow rows most characters visit lie
   * together in memory (docs/BENCHMARKS.md, "Substring matcher").
   */
  private build(): Automaton {
    const width = this.width;
    const children: number[][] = [[]];
    const trieOutput: number[][] = [[]];
    this.patterns.forEach((pattern, index) => {
      let state = 0;
      for (const code of lowerCodes(pattern)) {
        const symbol = this.symbols[code]!;
        let child = children[state]![symbol];
        if (child === undefined) {
          child = children.length;
          children[state]![symbol] = child;
          children.push([]);
          trieOutput.push([]);
        }
        state = child;
      }
      trieOutput[state]!.push(index);
    });
    const states = children.length;
    // Breadth-first order: `order[n]` is the trie state numbered n.
    const order = [0];
    const number = new Int32Array(states);
    for (let head = 0; head < order.length; head++) {
      for (const child of children[order[head]!]!) {
        if (child === undefined) continue;
        number[child] = order.length;
        order.push(child);
      }
    }
    // Each entry is its target's row offset (state × width), complemented (negative) when a pattern
    // ends there: the scan then needs no multiply and no second table per character.
    const next = new Int32Array(states * width);
    const output: number[][] = order.map((state) => trieOutput[state]!);
    const fail = new Int32Array(states);
    for (let n = 0; n < states; n++) {
      const kids = children[order[n]!]!;
      for (let symbol = 0; symbol < width; symbol++) {
        const child = kids[symbol];
        const viaFailure = n === 0 ? 0 : next[fail[n]! * width + symbol]!;
        if (child === undefined) {
          next[n * width + symbol] = viaFailure;
          continue;
        }
        const m = number[child]!;
        const target = (viaFailure < 0 ? ~viaFailure : viaFailure) / width;
        fail[m] = target;
        output[m] = [...output[m]!, ...output[target]!];
        next[n * width + symbol] = output[m]!.length > 0 ? ~(m * width) : m * width;
      }
    }
    return {
      next,
      output: output.map((ending) => Int32Array.from(ending)),
      added: new Uint32Array(this.patterns.length),
      visit: 0,
    };
  }
}

interface Automaton {
  /** Row offset (state × width) + symbol → the next state's row offset, complemented when accepting. */
  next: Int32Array;
  /** State → the indexes of the patterns that end there (its own and its suffixes'). */
  output: Int32Array[];
  /** Pattern → the `visit` of the last `findAll` that added it. */
  added: Uint32Array;
  visit: number;
}

/**
 * The patterns one text contains, by their index in the matcher's `patterns`, in the order first
 * found: an index is a plain array lookup for the tables built beside the matcher.
 */
export class Found {
  constructor(
    private readonly matcher: SubstringMatcher,
    readonly indexes: readonly number[],
  ) {}

  /** A text holds a few patterns: a scan of their indexes is cheaper than a set. */
  hasIndex(index: number): boolean {
    return index >= 0 && this.indexes.includes(index);
  }

  // Loops, not `every`/`some` with a closure: these run for every record, and each closure is allocated.
  hasEvery(indexes: readonly number[]): boolean {
    for (let i = 0; i < indexes.length; i++) if (!this.hasIndex(indexes[i]!)) return false;
    return true;
  }

  hasSome(indexes: readonly number[]): boolean {
    for (let i = 0; i < indexes.length; i++) if (this.hasIndex(indexes[i]!)) return true;
    return false;
  }

  /** The patterns found, as strings; with `only`, those whose index it flags 1. */
  patterns(only?: Uint8Array): string[] {
    const patterns: string[] = [];
    for (const index of this.indexes)
      if (only === undefined || only[index] === 1) patterns.push(this.matcher.patterns[index]!);
    return patterns;
  }
}

function lowerCodes(pattern: string): number[] {
  const codes: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const code = pattern.charCodeAt(i);
    codes.push(code >= 65 && code <= 90 ? code + 32 : code);
  }
  return codes;
}
