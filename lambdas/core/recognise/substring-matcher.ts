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

  /** Every pattern `text` contains, nested and overlapping ones included. */
  findAll(text: string): Set<string> {
    const automaton = (this.automaton ??= this.build());
    const { next, output, seen } = automaton;
    const { symbols, width, patterns } = this;
    const found = new Set<string>();
    // A state reached again adds nothing new: its patterns are added on its first visit per text.
    const visit = (automaton.visit = automaton.visit === 0xffffffff ? 1 : automaton.visit + 1);
    if (visit === 1) seen.fill(0);
    let row = 0;
    for (let i = 0, length = text.length; i < length; i++) {
      const code = text.charCodeAt(i);
      row = next[row + (code < 128 ? symbols[code]! : 0)]!;
      if (row < 0) {
        row = ~row;
        const state = row / width;
        if (seen[state] !== visit) {
          seen[state] = visit;
          for (const pattern of output[state]!) found.add(patterns[pattern]!);
        }
      }
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
    const states = children.length;
    const next = new Int32Array(states * width);
    const fail = new Int32Array(states);
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
    // Each entry becomes its target's row offset, complemented (negative) when a pattern ends there:
    // the scan then needs no multiply and no second table per character (docs/BENCHMARKS.md).
    for (let i = 0; i < next.length; i++) {
      const target = next[i]!;
      next[i] = output[target]!.length > 0 ? ~(target * width) : target * width;
    }
    return { next, output, seen: new Uint32Array(states), visit: 0 };
  }
}

interface Automaton {
  /** Row offset (state × width) + symbol → the next state's row offset, complemented when accepting. */
  next: Int32Array;
  /** State → the indexes of the patterns that end there (its own and its suffixes'). */
  output: number[][];
  /** State → the `visit` of the last `findAll` that added its patterns. */
  seen: Uint32Array;
  visit: number;
}

function lowerCodes(pattern: string): number[] {
  const codes: number[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const code = pattern.charCodeAt(i);
    codes.push(code >= 65 && code <= 90 ? code + 32 : code);
  }
  return codes;
}
