import {
  BLOCK,
  BR,
  BR_IF,
  ELSE,
  END,
  I32,
  I32_ADD,
  I32_AND,
  I32_CONST,
  I32_EQ,
  I32_EQZ,
  I32_GE_U,
  I32_LOAD,
  I32_LOAD16_S,
  I32_LOAD8_U,
  I32_LT_S,
  I32_LT_U,
  I32_NE,
  I32_OR,
  I32_SHL,
  I32_SHR_S,
  I32_STORE,
  I32_SUB,
  I32_XOR,
  IF,
  LOCAL_GET,
  LOCAL_SET,
  LOCAL_TEE,
  LOOP,
  moduleBytes,
  signed,
  unsigned,
  VOID,
  Wasm,
  type WasmMemory,
} from './wasm-encoding';
/**
 * `SubstringMatcher.scan`'s pass in WebAssembly: the text copied once as UTF-8
 * (`TextEncoder.encodeInto`, native), then one loop over its bytes that follows the automaton (complete
 * rows near the root; each deeper state its one edge, or a list of them, beside its failure link, so
 * a step reads one cache line) and, where a pattern ends, the dictionary links, listing each pattern
 * found the first time. A text at least twice the longest pattern is scanned as two or three
 * overlapping parts whose lookups advance together (`findAll`). The JavaScript loop pays for
 * `charCodeAt` and bounds checks on every character and waits for each state before the next.
 *
 * Same answers, in the same order, as the JavaScript loop (test/core/substring-matcher.test.ts holds
 * both to the automaton as it was): a character outside ASCII takes the automaton back to its root
 * (no pattern holds one, so it has no edge anywhere), and so do the two to four bytes UTF-8 writes for
 * it, all ≥ 0x80.
 *
 * Patterns found are marked with the number of the scan (`generation`), not cleared between scans.
 */

/** The automaton as `SubstringMatcher` builds it (see its `Automaton`), the dense rows in 16 bits. */
export interface FindTables {
  /** Shallow state × symbol → next state, or its complement when a pattern ends in it. */
  next: Int16Array;
  shift: number;
  /** ASCII code → symbol. */
  symbols: Uint8Array;
  dense: number;
  edges: Int32Array;
  edgeSymbol: Uint8Array;
  edgeTarget: Int32Array;
  fail: Int32Array;
  output: Int32Array;
  sameEnd: Int32Array;
  dictionary: Int32Array;
}

/**
 * Where the patterns found go: `start` for a new text, then `add` (1 + index) in order, repeats
 * ignored; `ascii` says whether the text was all ASCII (its UTF-8 as long as it); `places`, where in
 * it each pattern found ends, when the text was all ASCII (its bytes then its characters).
 */
export interface Found {
  start(): void;
  add(entry: number): void;
  ascii: boolean;
  places: PatternPlaces | undefined;
}

/**
 * Where the patterns of the text last scanned end: `ends(index)` puts the first and the last place
 * where pattern `index` ends (the index of its last character in the text) into `firstEnd` and
 * `lastEnd`, and is false when the pattern was not found. Valid until the next scan.
 */
export interface PatternPlaces {
  ends(index: number): boolean;
  firstEnd: number;
  lastEnd: number;
}

const PAGE = 65536;
/** Longer texts are left to the JavaScript loop (a CloudWatch event is at most 256 KB). */
const MAX_TEXT_BYTES = 4 * 1024 * 1024;
/** The functions of the module: `find${k}` scans a text as k parts at once. */
const LANES = [1, 2, 3];
const MAX_LANES = 3;
/** `copyMany` copies at most this many texts, of at most this many characters in all. */
const MANY_TEXTS = 64;
const MANY_CHARS = 32 * 1024;

export class NativeFind implements PatternPlaces {
  private readonly memory: WasmMemory;
  private readonly encoder = new TextEncoder();
  /** `finds[k]` scans k parts at once. */
  private readonly finds: Array<(from: number, to: number, generation: number) => void> = [];
  /** Where the text is copied, the parts' offsets and counts, each part's list. */
  private readonly textAt: number;
  private readonly offsetsAt: number;
  private readonly listsAt: readonly number[];
  /** Views kept, not made for each text; remade when the memory grows. */
  private line!: Uint8Array;
  private offsets!: Int32Array;
  private lists!: Int32Array[];
  private generation = 0;
  /** Where each text `copyMany` copied ends, in bytes from the first one's start. */
  private readonly copiedEnds = new Int32Array(MANY_TEXTS);
  /** Whether the texts `copyMany` copied were all ASCII. */
  private copiedAscii = false;
  /** The last text scanned: where it starts in the memory, and in how many parts it was scanned. */
  private scannedAt = 0;
  private scannedLanes = 0;
  firstEnd = -1;
  lastEnd = -1;

  private constructor(
    tables: FindTables,
    private readonly longest: number,
  ) {
    const patterns = tables.sameEnd.length;
    const deep = tables.fail.length;
    // Layout: byte → doubled symbol; dense rows; each deep state's edge and failure side by side (one
    // cache line for a step); the lists of edges of deep states with more or fewer than one; outputs
    // and dictionary links by state; the next pattern with the same end by 1 + pattern index; the
    // parts' offsets and counts; for each part, its marks by 1 + pattern index and its list; the text.
    const layout = new Layout();
    const symbolsAt = layout.take(256);
    const tableAt = layout.take(tables.next.byteLength);
    const deepAt = layout.take(8 * deep);
    const edgeListsAt = layout.take(4 * (tables.edgeSymbol.length + deep));
    const outputAt = layout.take(4 * tables.output.length);
    const dictionaryAt = layout.take(4 * tables.dictionary.length);
    const sameEndAt = layout.take(4 * (patterns + 1));
    this.offsetsAt = layout.take(8 * MAX_LANES);
    const marksAt: number[] = [];
    const listsAt: number[] = [];
    const firstAt: number[] = [];
    const lastAt: number[] = [];
    for (let lane = 0; lane < MAX_LANES; lane++) {
      marksAt.push(layout.take(4 * (patterns + 1)));
      listsAt.push(layout.take(4 * patterns));
      firstAt.push(layout.take(4 * (patterns + 1)));
      lastAt.push(layout.take(4 * (patterns + 1)));
    }
    this.marksAt = marksAt;
    this.listsAt = listsAt;
    this.firstAt = firstAt;
    this.lastAt = lastAt;
    this.patterns = patterns;
    this.textAt = layout.take(0);
    this.memory = new Wasm.Memory({ initial: Math.ceil((this.textAt + PAGE) / PAGE) });
    const buffer = this.memory.buffer;
    const bytes = new Uint8Array(buffer);
    for (let code = 0; code < 128; code++) bytes[symbolsAt + code] = tables.symbols[code]! * 2;
    new Int16Array(buffer, tableAt, tables.next.length).set(tables.next);
    // An edge is packed as target << 8 | doubled symbol (even, never 0: no edge leads to the root). A
    // deep state with one edge (most: the rest of a pattern) holds it; one with more or none holds
    // the byte offset of its list (ended by a 0) shifted left, with the low bit set.
    const packed = (edge: number) => (tables.edgeTarget[edge]! << 8) | (tables.edgeSymbol[edge]! * 2);
    const steps = new Int32Array(buffer, deepAt, 2 * deep);
    const edgeLists = new Int32Array(buffer, edgeListsAt, tables.edgeSymbol.length + deep);
    let listed = 0;
    for (let state = 0; state < deep; state++) {
      const first = tables.edges[state]!;
      const end = tables.edges[state + 1]!;
      if (end - first === 1) steps[2 * state] = packed(first);
      else {
        steps[2 * state] = ((edgeListsAt + 4 * listed) << 1) | 1;
        for (let edge = first; edge < end; edge++) edgeLists[listed++] = packed(edge);
        edgeLists[listed++] = 0;
      }
      steps[2 * state + 1] = tables.fail[state]!;
    }
    new Int32Array(buffer, outputAt, tables.output.length).set(tables.output);
    new Int32Array(buffer, dictionaryAt, tables.dictionary.length).set(tables.dictionary);
    new Int32Array(buffer, sameEndAt + 4, patterns).set(tables.sameEnd);
    const at = {
      shift: tables.shift,
      dense: tables.dense,
      symbolsAt,
      tableAt,
      deepAt,
      outputAt,
      dictionaryAt,
      sameEndAt,
      offsetsAt: this.offsetsAt,
      marksAt,
      listsAt,
      firstAt,
      lastAt,
    };
    const module = new Wasm.Module(
      moduleBytes(
        [0x60, 3, I32, I32, I32, 0],
        LANES.map((lanes) => `find${lanes}`),
        LANES.map((lanes) => findBody(lanes, at)),
      ),
    );
    const exports = new Wasm.Instance(module, { m: { memory: this.memory } }).exports;
    for (const lanes of LANES) this.finds[lanes] = exports[`find${lanes}`] as (typeof this.finds)[number];
    this.views();
  }

  private readonly marksAt: readonly number[];
  private readonly firstAt: readonly number[];
  private readonly lastAt: readonly number[];
  private readonly patterns: number;
  /** The memory as 32-bit words (remade when it grows). */
  private words!: Int32Array;

  /**
   * A finder for the automaton, or undefined where WebAssembly is not available or the automaton does
   * not fit 16-bit rows and 24-bit edge targets.
   */
  static of(tables: FindTables, longest: number): NativeFind | undefined {
    if (typeof Wasm !== 'object' || tables.output.length >= 0x8000 || tables.shift > 7) return undefined;
    return new NativeFind(tables, longest);
  }

  /**
   * The patterns `text` holds, into `found` in the order `SubstringMatcher.findAll` finds them; false
   * when the text is too long for this finder.
   *
   * A text of n bytes, n at least twice the longest pattern, is scanned as two or three overlapping
   * parts whose lookups advance together (the scan of one part is a chain of dependent loads: the
   * processor waits for each state before the next). Each part starts at the root, runs the longest
   * pattern less one byte past where the next part starts, and lists each pattern it finds once, in
   * the order it finds them. The text's order is the parts' lists one after the other, each pattern
   * at its first place: a pattern listed by a part and none before it first occurs in that part (had
   * it started earlier, the part where it started would have found it whole), and it ends past
   * everything the parts before found, so after it in the text's order; in one part, the patterns
   * first found there come in the text's order, ties at one position in the order of the dictionary
   * links (longest first), as in one pass.
   */
  findAll(text: string, found: Found): boolean {
    const room = text.length * 3;
    if (room > MAX_TEXT_BYTES) return false;
    if (this.textAt + room > this.memory.buffer.byteLength) this.grow(this.textAt + room);
    const n = this.encoder.encodeInto(text, this.line).written;
    this.findBytes(this.textAt, n, found);
    found.ascii = n === text.length;
    found.places = found.ascii ? this : undefined;
    return true;
  }

  /**
   * Copies `texts[from]` and the texts after it (up to MANY_TEXTS of them, MANY_CHARS in all, at
   * least one) as UTF-8, one after another, for `findCopied`; returns how many it copied, 0 when
   * `texts[from]` is too long for this finder. One `encodeInto` for them all when they are all ASCII
   * (the usual case: their bytes are then their characters), instead of one per text.
   */
  copyMany(texts: readonly string[], from: number): number {
    let to = from;
    let chars = 0;
    for (const last = Math.min(texts.length, from + MANY_TEXTS); to < last; to++) {
      const length = texts[to]!.length;
      if (to > from && chars + length > MANY_CHARS) break;
      chars += length;
    }
    const room = chars * 3;
    if (room > MAX_TEXT_BYTES) return 0;
    if (this.textAt + room > this.memory.buffer.byteLength) this.grow(this.textAt + room);
    const count = to - from;
    const ends = this.copiedEnds;
    let joined = '';
    for (let i = from; i < to; i++) joined += texts[i]!;
    const line = this.line;
    let end = 0;
    this.copiedAscii = this.encoder.encodeInto(joined, line).written === joined.length;
    if (this.copiedAscii) {
      for (let i = 0; i < count; i++) ends[i] = end += texts[from + i]!.length;
    } else {
      for (let i = 0; i < count; i++) {
        ends[i] = end += this.encoder.encodeInto(texts[from + i]!, line.subarray(end)).written;
      }
    }
    return count;
  }

  /** `findAll` of the text `copyMany` copied at `index` (from 0). */
  findCopied(index: number, found: Found): void {
    const start = index === 0 ? 0 : this.copiedEnds[index - 1]!;
    this.findBytes(this.textAt + start, this.copiedEnds[index]! - start, found);
    found.ascii = this.copiedAscii;
    found.places = this.copiedAscii ? this : undefined;
  }

  /**
   * Where pattern `index` ends first and last in the text last scanned, in bytes from its start (its
   * characters when it was ASCII): the first of the parts that found it has its first place, the
   * last of them its last (parts overlap, and each finds only what ends in it).
   */
  ends(index: number): boolean {
    const entry = index + 1;
    const generation = this.generation;
    let first = -1;
    let last = -1;
    const words = this.words;
    for (let lane = 0, lanes = this.scannedLanes; lane < lanes; lane++) {
      // Each part's marks, and the first and last address where each pattern ended, by 1 + pattern index.
      if (words[(this.marksAt[lane]! >> 2) + entry] !== generation) continue;
      if (first === -1) first = words[(this.firstAt[lane]! >> 2) + entry]!;
      last = words[(this.lastAt[lane]! >> 2) + entry]!;
    }
    if (first === -1) return false;
    this.firstEnd = first - this.scannedAt;
    this.lastEnd = last - this.scannedAt;
    return true;
  }

  /** The patterns of the `n` bytes at `at`, into `found` (`findAll`'s pass). */
  private findBytes(at: number, n: number, found: Found): void {
    // The marks are numbers of scans: one that wraps around starts them again from zero.
    if (++this.generation === 0x7fffffff) this.resetMarks();
    const longest = this.longest;
    let lanes = Math.max(1, Math.min(MAX_LANES, Math.floor(n / longest)));
    let length = n;
    if (lanes > 1) {
      // A part j < lanes − 1 starts at j × step, the last one ends with the text; the one before the
      // last must end within it too.
      for (; lanes > 2; lanes--) {
        const step = Math.ceil((n - longest + 1) / lanes);
        if ((lanes - 1) * step + longest - 1 <= n) break;
      }
      const step = Math.ceil((n - longest + 1) / lanes);
      length = step + longest - 1;
      for (let lane = 1; lane < lanes - 1; lane++) this.offsets[lane] = lane * step;
      this.offsets[lanes - 1] = n - length;
    }
    this.finds[lanes]!(at, at + length, this.generation);
    this.scannedAt = at;
    this.scannedLanes = lanes;
    found.start();
    for (let lane = 0; lane < lanes; lane++) {
      const list = this.lists[lane]!;
      for (let i = 0, count = this.offsets[MAX_LANES + lane]!; i < count; i++) found.add(list[i]!);
    }
  }

  private resetMarks(): void {
    this.generation = 1;
    for (const at of this.marksAt) new Int32Array(this.memory.buffer, at, this.patterns + 1).fill(0);
  }

  private grow(bytes: number): void {
    this.memory.grow(Math.ceil((bytes - this.memory.buffer.byteLength) / PAGE));
    this.views();
  }

  private views(): void {
    const buffer = this.memory.buffer;
    this.line = new Uint8Array(buffer, this.textAt);
    this.offsets = new Int32Array(buffer, this.offsetsAt, 2 * MAX_LANES);
    this.lists = this.listsAt.map((at) => new Int32Array(buffer, at, this.patterns));
    this.words = new Int32Array(buffer);
  }
}

/** Consecutive regions of the memory, each 16-byte aligned. */
class Layout {
  private end = 0;
  take(bytes: number): number {
    const at = this.end;
    this.end = Math.ceil((at + bytes) / 16) * 16;
    return at;
  }
}

// WebAssembly opcodes used below.

// The functions' parameters and locals: shared ones, then each part's.
const FROM = 0;
const TO = 1;
const GENERATION = 2;
const SYMBOL = 3;
const TARGET = 4;
const DEEP = 5;
const EDGE = 6;
const AT = 7;
const INDEX = 8;
const STATE = (lane: number) => 9 + 4 * lane;
const COUNT = (lane: number) => 10 + 4 * lane;
const OFFSET = (lane: number) => 11 + 4 * lane;
const POSITION = (lane: number) => 12 + 4 * lane;
const LOCALS = (lanes: number) => 6 + 4 * lanes;

const get = (local: number) => [LOCAL_GET, local];
const set = (local: number) => [LOCAL_SET, local];
const constant = (value: number) => [I32_CONST, ...signed(value)];
/** A 32-bit load or store at the address on the stack plus a fixed offset (alignment 4). */
const load = (offset: number) => [I32_LOAD, 2, ...unsigned(offset)];
const store = (offset: number) => [I32_STORE, 2, ...unsigned(offset)];
/** `value × 4` (an index into a table of 32-bit entries). */
const times4 = (local: number) => [...get(local), ...constant(2), I32_SHL];

interface Offsets {
  shift: number;
  dense: number;
  symbolsAt: number;
  tableAt: number;
  deepAt: number;
  outputAt: number;
  dictionaryAt: number;
  sameEndAt: number;
  offsetsAt: number;
  marksAt: readonly number[];
  listsAt: readonly number[];
  firstAt: readonly number[];
  lastAt: readonly number[];
}

/**
 * `find${lanes}(from, to, generation)`: part 0 runs from `from` to `to`, part j the same length from
 * `from + offset[j]`; each part's count of patterns goes to `offsets[MAX_LANES + j]`, and its
 * patterns, as 1 + their indexes, in the order it finds them, to its list.
 */
function findBody(lanes: number, at: Offsets): number[] {
  const code: number[] = [];
  for (let lane = 1; lane < lanes; lane++) {
    code.push(...constant(0), ...load(at.offsetsAt + 4 * lane), ...set(OFFSET(lane)));
  }
  code.push(BLOCK, VOID, LOOP, VOID); // $chars (br 0 continues, br 1 leaves)
  code.push(...get(FROM), ...get(TO), I32_GE_U, BR_IF, 1);
  for (let lane = 0; lane < lanes; lane++) {
    let position = FROM;
    if (lane > 0) {
      position = POSITION(lane);
      code.push(...get(FROM), ...get(OFFSET(lane)), I32_ADD, ...set(position));
    }
    code.push(...step(position, STATE(lane), COUNT(lane), lane, at));
  }
  code.push(...get(FROM), ...constant(1), I32_ADD, ...set(FROM), BR, 0, END, END);
  for (let lane = 0; lane < lanes; lane++) {
    code.push(...constant(0), ...get(COUNT(lane)), ...store(at.offsetsAt + 4 * (MAX_LANES + lane)));
  }
  code.push(END);
  return [1, ...unsigned(LOCALS(lanes)), I32, ...code];
}

/** One part's step over the byte at `position`: its next state, and the patterns that end there. */
function step(position: number, state: number, count: number, lane: number, at: Offsets): number[] {
  const marksAt = at.marksAt[lane]!;
  const listAt = at.listsAt[lane]!;
  // prettier-ignore
  return [
    ...get(position), I32_LOAD8_U, 0, 0, I32_LOAD8_U, 0, ...unsigned(at.symbolsAt), ...set(SYMBOL),
    // The next state: a shallow state's row, else a deep state's own edge, else its failure's.
    BLOCK, VOID, LOOP, VOID, // $found, $walk
    ...get(state), ...constant(at.dense), I32_LT_U,
    IF, VOID,
    ...get(state), ...constant(at.shift + 1), I32_SHL, ...get(SYMBOL), I32_OR,
    I32_LOAD16_S, 1, ...unsigned(at.tableAt), ...set(TARGET),
    BR, 2, // out of $found
    END,
    ...get(state), ...constant(at.dense), I32_SUB, ...constant(3), I32_SHL, ...set(DEEP),
    ...get(DEEP), ...load(at.deepAt), LOCAL_TEE, TARGET, ...constant(1), I32_AND,
    IF, VOID,
    // A list of edges, ended by 0.
    ...get(TARGET), ...constant(1), I32_SHR_S, ...set(EDGE),
    BLOCK, VOID, LOOP, VOID, // $none, $edges
    ...get(EDGE), ...load(0), LOCAL_TEE, TARGET, I32_EQZ, BR_IF, 1,
    ...get(TARGET), ...constant(255), I32_AND, ...get(SYMBOL), I32_EQ,
    IF, VOID,
    ...get(TARGET), ...constant(8), I32_SHR_S, ...set(TARGET),
    BR, 5, // out of $found
    END,
    ...get(EDGE), ...constant(4), I32_ADD, ...set(EDGE),
    BR, 0,
    END, END,
    ELSE,
    // The one edge.
    ...get(TARGET), ...constant(255), I32_AND, ...get(SYMBOL), I32_EQ,
    IF, VOID,
    ...get(TARGET), ...constant(8), I32_SHR_S, ...set(TARGET),
    BR, 3, // out of $found
    END,
    END,
    ...get(DEEP), ...load(at.deepAt + 4), ...set(state),
    BR, 0, // $walk again from the failure
    END, END,
    // A pattern ends here: this state's own, then those of its suffixes (dictionary links).
    ...get(TARGET), ...constant(0), I32_LT_S,
    IF, VOID,
    ...get(TARGET), ...constant(-1), I32_XOR, LOCAL_TEE, state, ...set(AT),
    BLOCK, VOID, LOOP, VOID, // $suffixes
    ...get(AT), I32_EQZ, BR_IF, 1,
    ...times4(AT), ...load(at.outputAt), ...set(INDEX),
    BLOCK, VOID, LOOP, VOID, // $sameEnd
    ...get(INDEX), I32_EQZ, BR_IF, 1,
    ...times4(INDEX), ...load(marksAt), ...get(GENERATION), I32_NE,
    IF, VOID,
    ...times4(INDEX), ...get(GENERATION), ...store(marksAt),
    ...times4(count), ...get(INDEX), ...store(listAt),
    ...get(count), ...constant(1), I32_ADD, ...set(count),
    ...times4(INDEX), ...get(position), ...store(at.firstAt[lane]!),
    END,
    ...times4(INDEX), ...get(position), ...store(at.lastAt[lane]!),
    ...times4(INDEX), ...load(at.sameEndAt), ...set(INDEX),
    BR, 0,
    END, END,
    ...times4(AT), ...load(at.dictionaryAt), ...set(AT),
    BR, 0,
    END, END,
    ELSE,
    ...get(TARGET), ...set(state),
    END,
  ];
}
