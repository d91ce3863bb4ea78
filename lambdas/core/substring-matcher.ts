import { NativeFind, type PatternPlaces } from './native-find';
import { NativeScan } from './native-scan';

/**
 * Finds which of many ASCII substrings a text contains, ignoring ASCII case, in one pass (an
 * Aho–Corasick automaton over the few characters the patterns use). A regular-expression alternation
 * of a few hundred literals tries them at every position; this costs about one table lookup per
 * character whatever the number of patterns — about three times faster on Karpenter logs (npm run
 * bench).
 *
 * Every state has a complete row of transitions by default: one lookup per character. A state
 * can instead keep just its own edges and its failure link (`denseDepth`: rows only for states that
 * close to the root), which makes the table small; measured on an idle machine that costs more per
 * character than it saves (the prefilter's pass over healthy lines 26 ms with rows to depth 3, 18 ms
 * with every row), so it is kept for the tests, which exercise both kinds of state.
 *
 * Built on first use, in typed arrays only (no array per state; the trie as lists of siblings, not
 * a table): a cold start pays for it once, on the first text it scans. A transition into a state
 * where some pattern ends is stored as its complement (`~state`, negative), so `test` stops at the first negative entry and `findAll` knows
 * without another lookup when to collect outputs.
 *
 * `scan` (what `findAll` gives, as indexes into the patterns, in an object reused from text to text)
 * runs in WebAssembly where it can (lambdas/core/native-find.ts), over the same tables.
 */
export class SubstringMatcher {
  /** ASCII code → symbol (letters folded to lower case); 0 for characters no pattern uses. */
  private readonly symbols = new Uint8Array(128);
  private readonly shift: number;
  private automaton?: Automaton;
  /** The pass of `test` in WebAssembly (lambdas/core/native-scan.ts), built with the automaton; null when none. */
  private native?: NativeScan | null;

  constructor(
    readonly patterns: readonly string[],
    /** States this close to the root get complete rows (every state by default; tests lower it). */
    private readonly denseDepth = Infinity,
    /** Whether `test` may use the WebAssembly pass (tests turn it off to compare it with the loop here). */
    private readonly useNative = true,
  ) {
    let next = 1;
    for (const pattern of patterns) {
      if (pattern.length === 0 || /[^\x00-\x7f]/.test(pattern)) {
        throw new Error(`SubstringMatcher patterns must be non-empty ASCII: ${JSON.stringify(pattern)}`);
      }
      for (let i = 0; i < pattern.length; i++) {
        let code = pattern.charCodeAt(i);
        if (code >= 65 && code <= 90) code += 32;
        if (this.symbols[code] === 0) this.symbols[code] = next++;
      }
    }
    for (let code = 65; code <= 90; code++) this.symbols[code] = this.symbols[code + 32]!;
    let shift = 0;
    while (1 << shift < next) shift++;
    this.shift = shift;
  }

  /** True when `text` contains one of the patterns, ASCII case ignored. */
  test(text: string): boolean {
    const { next, dense, edges, edgeSymbol, edgeTarget, fail } = this.automaton ?? this.build();
    const symbols = this.symbols;
    const shift = this.shift;
    if (fail.length === 0) {
      if (this.native === undefined) this.native = this.nativeScan(next);
      return this.native?.test(text) ?? this.testDense(text, next);
    }
    let state = 0;
    for (let i = 0, length = text.length; i < length; i++) {
      const code = text.charCodeAt(i);
      const symbol = code < 128 ? symbols[code]! : 0;
      let target = 0;
      // A deep state: its own edge, else its failure link, until a shallow state (which has every edge).
      for (;;) {
        if (state < dense) {
          target = next[(state << shift) | symbol]!;
          break;
        }
        const deep = state - dense;
        for (let edge = edges[deep]!, end = edges[deep + 1]!; edge < end; edge++) {
          if (edgeSymbol[edge] === symbol) {
            target = edgeTarget[edge]!;
            break;
          }
        }
        if (target !== 0) break;
        state = fail[deep]!;
      }
      if (target < 0) return true;
      state = target;
    }
    return false;
  }

  /**
   * `test` when every state has its row (the default): one lookup per character and no branch on the
   * kind of state, which the step above pays on every character (about a fifth of the prefilter's pass
   * over the raw mix, npm run bench).
   */
  private testDense(text: string, next: Int16Array | Int32Array): boolean {
    const symbols = this.symbols;
    const shift = this.shift;
    let state = 0;
    for (let i = 0, length = text.length; i < length; i++) {
      const code = text.charCodeAt(i);
      const target = next[(state << shift) | (code < 128 ? symbols[code]! : 0)]!;
      if (target < 0) return true;
      state = target;
    }
    return false;
  }

  private nativeScan(next: Int16Array | Int32Array): NativeScan | null {
    if (!this.useNative || !(next instanceof Int16Array)) return null;
    const longest = this.patterns.reduce((max, pattern) => Math.max(max, pattern.length), 0);
    return NativeScan.of(next, this.symbols, this.shift, longest) ?? null;
  }

  /** Every pattern `text` contains (overlapping and nested ones included), ASCII case ignored. */
  findAll(text: string): Set<string> {
    return new Set(this.scan(text));
  }

  /**
   * The patterns `text` contains, as `findAll` gives them (the same, in the same order), but as
   * indexes into `patterns` in an object this matcher reuses: what it holds is valid until the next
   * scan of this matcher. No set is made per text, and a caller that knows its patterns' indexes
   * tests them without hashing (`hasIndex`).
   */
  scan(text: string): Found {
    const automaton = this.automaton ?? this.build();
    const found = (this.found ??= new Found(this.patterns));
    if (this.nativeFind === undefined) this.nativeFind = this.useNative ? this.makeNativeFind(automaton) : null;
    this.scans++;
    if (this.nativeFind?.findAll(text, found) !== true) this.scanHere(text, automaton, found);
    return found;
  }

  /**
   * `scan` of each text in turn, `visit` called with each text's index and what it holds (the
   * matcher's own object, valid until `visit` returns), in the order of the texts: the same answers
   * as a `scan` of each (`visit` may scan too). In WebAssembly the texts are copied for the pass many
   * at once (`NativeFind.copyMany`: one `encodeInto` for many texts instead of one each).
   */
  scanEach(texts: readonly string[], visit: (index: number, found: Found) => void): void {
    if (texts.length === 0) return;
    const automaton = this.automaton ?? this.build();
    const found = (this.found ??= new Found(this.patterns));
    if (this.nativeFind === undefined) this.nativeFind = this.useNative ? this.makeNativeFind(automaton) : null;
    const native = this.nativeFind;
    for (let from = 0, count = texts.length; from < count;) {
      const copied = native?.copyMany(texts, from) ?? 0;
      if (copied === 0) {
        const text = texts[from]!;
        this.scanHere(text, automaton, found);
        visit(from++, found);
        continue;
      }
      const scans = this.scans;
      let i = 0;
      // A `scan` by `visit` copies its own text over those copied: the rest are copied again.
      while (i < copied && this.scans === scans) {
        native!.findCopied(i, found);
        visit(from + i++, found);
      }
      from += i;
    }
  }

  /** How many texts `scan` has copied for the WebAssembly pass (see `scanEach`). */
  private scans = 0;

  private found?: Found;
  /** The pass of `scan` in WebAssembly (lambdas/core/native-find.ts), built on first scan; null when none. */
  private nativeFind?: NativeFind | null;

  private makeNativeFind(automaton: Automaton): NativeFind | null {
    const { next } = automaton;
    if (!(next instanceof Int16Array)) return null;
    const longest = this.patterns.reduce((max, pattern) => Math.max(max, pattern.length), 0);
    return NativeFind.of({ ...automaton, next, shift: this.shift, symbols: this.symbols }, longest) ?? null;
  }

  /** `scan` in JavaScript: where WebAssembly is not available or not wanted, and for the longest texts. */
  private scanHere(text: string, automaton: Automaton, found: Found): void {
    const { next, dense, edges, edgeSymbol, edgeTarget, fail, output, sameEnd, dictionary } = automaton;
    const symbols = this.symbols;
    const shift = this.shift;
    const order = found.order;
    const marks = found.start();
    found.ascii = false;
    found.places = undefined;
    const generation = found.generation;
    let count = 0;
    let state = 0;
    for (let i = 0, length = text.length; i < length; i++) {
      const code = text.charCodeAt(i);
      const symbol = code < 128 ? symbols[code]! : 0;
      let target = 0;
      for (;;) {
        if (state < dense) {
          target = next[(state << shift) | symbol]!;
          break;
        }
        const deep = state - dense;
        for (let edge = edges[deep]!, end = edges[deep + 1]!; edge < end; edge++) {
          if (edgeSymbol[edge] === symbol) {
            target = edgeTarget[edge]!;
            break;
          }
        }
        if (target !== 0) break;
        state = fail[deep]!;
      }
      if (target < 0) {
        state = ~target;
        // The patterns ending here: this state's own, then those of its suffixes (dictionary links).
        for (let at = state; at > 0; at = dictionary[at]!) {
          for (let index = output[at]!; index > 0; index = sameEnd[index - 1]!) {
            if (marks[index - 1] !== generation) {
              marks[index - 1] = generation;
              order[count++] = index;
            }
          }
        }
      } else {
        state = target;
      }
    }
    found.count = count;
  }

  private build(): Automaton {
    const shift = this.shift;
    const width = 1 << shift;
    const symbols = this.symbols;
    let capacity = 1;
    for (const pattern of this.patterns) capacity += pattern.length;
    // The trie, its edges as lists of siblings (no table: only the shallow states get rows, below).
    // States are numbered as created, so each pattern's own states follow one another.
    const firstChild = new Int32Array(capacity);
    const nextSibling = new Int32Array(capacity);
    const parent = new Int32Array(capacity);
    const symbolOf = new Uint8Array(capacity);
    const output = new Int32Array(capacity);
    const sameEnd = new Int32Array(this.patterns.length);
    // The root's children by symbol: the root has one for nearly every symbol, and most failure links
    // lead to it, so the failure links below look there most often (a cold start builds this once,
    // mostly before the code is optimised: each step of a walk costs).
    const rootChild = new Int32Array(width);
    const childOf = (state: number, symbol: number): number => {
      if (state === 0) return rootChild[symbol]!;
      for (let child = firstChild[state]!; child !== 0; child = nextSibling[child]!) {
        if (symbolOf[child] === symbol) return child;
      }
      return 0;
    };
    let states = 1;
    this.patterns.forEach((pattern, index) => {
      let state = 0;
      for (let i = 0; i < pattern.length; i++) {
        const symbol = symbols[pattern.charCodeAt(i)]!;
        let child = childOf(state, symbol);
        if (child === 0) {
          child = states++;
          parent[child] = state;
          symbolOf[child] = symbol;
          nextSibling[child] = firstChild[state]!;
          firstChild[state] = child;
          if (state === 0) rootChild[symbol] = child;
        }
        state = child;
      }
      sameEnd[index] = output[state]!;
      output[state] = index + 1;
    });
    // Failure and dictionary links breadth-first: a state's failure is the state its parent's failure
    // goes to on its symbol (following failures while there is no such edge).
    const fail = new Int32Array(states);
    const dictionary = new Int32Array(states);
    const accepting = new Uint8Array(states);
    const depth = new Int32Array(states);
    const queue = new Int32Array(states);
    let tail = 1;
    for (let head = 0; head < tail; head++) {
      const state = queue[head]!;
      if (state !== 0) {
        const failure = fail[state]!;
        dictionary[state] = output[failure]! > 0 ? failure : dictionary[failure]!;
        accepting[state] = output[state]! > 0 || dictionary[state]! > 0 ? 1 : 0;
      }
      for (let child = firstChild[state]!; child !== 0; child = nextSibling[child]!) {
        depth[child] = depth[state]! + 1;
        if (state !== 0) {
          let from = fail[state]!;
          let target = childOf(from, symbolOf[child]!);
          while (target === 0 && from !== 0) {
            from = fail[from]!;
            target = childOf(from, symbolOf[child]!);
          }
          fail[child] = target;
        }
        queue[tail++] = child;
      }
    }
    // Renumbered: the shallow states first, breadth-first (their rows are all a scan usually reads),
    // then the deep ones in creation order (a pattern's run is read in order).
    const renumbered = new Int32Array(states);
    let dense = 0;
    for (let head = 0; head < tail; head++) {
      if (depth[queue[head]!]! <= this.denseDepth) renumbered[queue[head]!] = dense++;
    }
    let deepCount = 0;
    for (let state = 1; state < states; state++) {
      if (depth[state]! > this.denseDepth) renumbered[state] = dense + deepCount++;
    }
    const encoded = (target: number) => (accepting[target] === 1 ? ~renumbered[target]! : renumbered[target]!);
    // Complete rows of the shallow states, breadth-first: a missing edge goes where the failure's
    // (shallower, so complete) row goes, so a row starts as a copy of its failure's, already encoded
    // (the encoding depends on the target alone), and its own edges are written over it. One native
    // copy a row instead of an encoding per entry: the prefilter's table has about 40,000 of them.
    const table = states < 0x8000 ? new Int16Array(dense << shift) : new Int32Array(dense << shift);
    for (let head = 0; head < tail; head++) {
      const state = queue[head]!;
      const index = renumbered[state]!;
      if (index >= dense) continue;
      const row = index << shift;
      if (state !== 0) {
        const from = renumbered[fail[state]!]! << shift;
        table.copyWithin(row, from, from + width);
      }
      for (let child = firstChild[state]!; child !== 0; child = nextSibling[child]!)
        table[row | symbolOf[child]!] = encoded(child);
    }
    const newOutput = new Int32Array(states);
    const newDictionary = new Int32Array(states);
    for (let state = 0; state < states; state++) {
      const index = renumbered[state]!;
      newOutput[index] = output[state]!;
      newDictionary[index] = renumbered[dictionary[state]!]!;
    }
    // A deep state's trie edges, grouped by state (counted, then placed), and its failure link.
    const edges = new Int32Array(deepCount + 1);
    for (let state = 1; state < states; state++) {
      const from = renumbered[parent[state]!]!;
      if (from >= dense) edges[from - dense + 1]!++;
    }
    for (let deep = 0; deep < deepCount; deep++) edges[deep + 1] = edges[deep + 1]! + edges[deep]!;
    const edgeSymbol = new Uint8Array(edges[deepCount]!);
    const edgeTarget = new Int32Array(edges[deepCount]!);
    const filled = edges.slice(0, deepCount);
    const deepFail = new Int32Array(deepCount);
    for (let state = 1; state < states; state++) {
      const index = renumbered[state]!;
      if (index >= dense) deepFail[index - dense] = renumbered[fail[state]!]!;
      const from = renumbered[parent[state]!]!;
      if (from >= dense) {
        const edge = filled[from - dense]!++;
        edgeSymbol[edge] = symbolOf[state]!;
        edgeTarget[edge] = encoded(state);
      }
    }
    this.automaton = {
      next: table,
      dense,
      edges,
      edgeSymbol,
      edgeTarget,
      fail: deepFail,
      output: newOutput,
      sameEnd,
      dictionary: newDictionary,
    };
    return this.automaton;
  }
}

interface Automaton {
  /** Shallow state × symbol → next state, or its complement when a pattern ends in it. */
  next: Int16Array | Int32Array;
  /** How many states are shallow (numbered 0 to dense − 1, the root first). */
  dense: number;
  /** Deep state (numbered from `dense`) → its first edge; the next entry ends its edges. */
  edges: Int32Array;
  /** Edge → the symbol it reads. */
  edgeSymbol: Uint8Array;
  /** Edge → the state it leads to, or its complement when a pattern ends in it (never 0). */
  edgeTarget: Int32Array;
  /** Deep state → its failure link (the longest proper suffix that is a state). */
  fail: Int32Array;
  /** State → 1 + index of a pattern that ends exactly there, or 0. */
  output: Int32Array;
  /** Pattern index → 1 + index of another pattern that ends in the same state (same text, other case), or 0. */
  sameEnd: Int32Array;
  /** State → the longest proper suffix state where a pattern ends, or 0. */
  dictionary: Int32Array;
}

/**
 * The patterns one text holds (`SubstringMatcher.scan`): a read-only set of them, and their indexes
 * into the matcher's patterns. One object per matcher, refilled by each scan.
 */
export class Found implements ReadonlySet<string> {
  /** 1 + the index of each pattern found, in the order found (the first `count` entries). */
  readonly order: Int32Array;
  count = 0;
  /**
   * Whether the text was all ASCII, when the pass knows it (the WebAssembly pass copies it as UTF-8,
   * so it does); false when it does not.
   */
  ascii = false;
  /**
   * Where each pattern found ends in the text, first and last (`PatternPlaces`), when the pass knows it
   * (the WebAssembly pass, on an ASCII text); undefined when it does not. Valid until the next scan.
   */
  places: PatternPlaces | undefined = undefined;
  /** Pattern index → the scan that last found it. */
  private readonly marks: Int32Array;
  generation = 0;
  /** Pattern → an index of it (a pattern given twice is found under both indexes at once). */
  private readonly indexOf = new Map<string, number>();
  /**
   * Pattern index → 1 when the pattern is listed under it: a pattern given twice is listed once, as
   * a set of the patterns found lists it, under its last index (found first: see `sameEnd`).
   */
  private readonly listed: Uint8Array;
  /** Whether no pattern is given twice: then every index found is listed. */
  private readonly distinct: boolean;

  constructor(readonly patterns: readonly string[]) {
    this.order = new Int32Array(patterns.length);
    this.marks = new Int32Array(patterns.length);
    this.listed = new Uint8Array(patterns.length);
    patterns.forEach((pattern, index) => this.indexOf.set(pattern, index));
    for (const index of this.indexOf.values()) this.listed[index] = 1;
    this.distinct = this.indexOf.size === patterns.length;
  }

  /** A new scan: nothing found yet; the marks its patterns are to be marked in with `generation`. */
  start(): Int32Array {
    if (++this.generation === 0x7fffffff) {
      this.generation = 1;
      this.marks.fill(0);
    }
    this.count = 0;
    return this.marks;
  }

  /** The pattern of index `entry − 1` found, unless it already was. */
  add(entry: number): void {
    if (this.marks[entry - 1] !== this.generation) {
      this.marks[entry - 1] = this.generation;
      this.order[this.count++] = entry;
    }
  }

  /** Whether the pattern of this index was found. */
  hasIndex(index: number): boolean {
    return this.marks[index] === this.generation;
  }

  has(pattern: string): boolean {
    const index = this.indexOf.get(pattern);
    return index !== undefined && this.marks[index] === this.generation;
  }

  get size(): number {
    if (this.distinct) return this.count;
    let size = 0;
    for (let i = 0; i < this.count; i++) size += this.listed[this.order[i]! - 1]!;
    return size;
  }

  *[Symbol.iterator](): SetIterator<string> {
    for (let i = 0; i < this.count; i++) {
      const index = this.order[i]! - 1;
      if (this.listed[index] === 1) yield this.patterns[index]!;
    }
  }

  keys(): SetIterator<string> {
    return this[Symbol.iterator]();
  }

  values(): SetIterator<string> {
    return this[Symbol.iterator]();
  }

  *entries(): SetIterator<[string, string]> {
    for (const pattern of this) yield [pattern, pattern];
  }

  forEach(callback: (value: string, key: string, set: ReadonlySet<string>) => void, thisArg?: unknown): void {
    for (const pattern of this) callback.call(thisArg, pattern, pattern, this);
  }
}
