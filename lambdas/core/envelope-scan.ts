import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import {
  BLOCK,
  BR,
  BR_IF,
  END,
  I32,
  I32_ADD,
  I32_CONST,
  I32_GE_U,
  I32_LE_U,
  I32_LOAD,
  I32_LOAD16_S,
  I32_LOAD8_U,
  I32_LT_S,
  I32_OR,
  I32_SHL,
  I32_STORE,
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
 * Where byte patterns end in a decoded subscription envelope, found in one pass of an Aho–Corasick
 * automaton in WebAssembly over the whole document (four parts at once, as native-scan.ts does with three).
 * The delivery decoder (subscription-payload.ts) looks for the prefilter's fragments in the form
 * they take inside the envelope's JSON strings, and for what a message written the way CloudWatch
 * writes it never holds, and parses only the events where one ends.
 *
 * Patterns are ASCII, matched with ASCII case ignored. A byte ≥ 0x80 takes the automaton back to its
 * root (no pattern holds one). Every control byte (< 0x20) is one and the same symbol: a pattern
 * character below 0x20 stands for any of them.
 */

/** Layout of the memory: symbol of each byte (doubled), parameters of the parts, the table, the text, the hits. */
const SYMBOLS = 0;
/** Per part: its offset, where its next hit goes (`OUTPUTS`), and the last place one may go (`LIMITS`). */
const PARAMS = 256;
const MAX_LANES = 16;
const OUTPUTS = PARAMS + 4 * MAX_LANES;
const LIMITS = OUTPUTS + 4 * MAX_LANES;
const TABLE = LIMITS + 4 * MAX_LANES;
const PAGE = 65536;
/**
 * Parts scanned at once by `scan4`; `scan1` takes short texts. On the raw mix's 1 MB deliveries
 * (interleaved rounds), four parts scan 15–20 % faster than three, six or eight no faster than four.
 */
const LANES = 4;

/** The automaton of a list of patterns: complete rows, a negative entry (`~state`) where a pattern ends. */
export interface Automaton {
  table: Int16Array;
  /** Per state: the classes of the patterns that end there, or-ed (`automatonOf`'s `classes`). */
  classes: Uint8Array;
  /** Symbol of each byte value. */
  symbols: Uint8Array;
  shift: number;
  longest: number;
}

/**
 * Builds the automaton (complete rows, one per state, `1 << shift` entries each). `classes[i]` is
 * pattern i's class, a bit: each state knows the classes of every pattern that ends on reaching it.
 */
export function automatonOf(patterns: readonly string[], classes: readonly number[] = []): Automaton {
  const symbols = new Uint8Array(256);
  const codeOf = (code: number) => (code < 32 ? 1 : code >= 65 && code <= 90 ? code + 32 : code);
  let next = 1;
  let longest = 0;
  for (const pattern of patterns) {
    if (pattern.length === 0 || /[^\x00-\x7f]/.test(pattern)) {
      throw new Error(`envelope patterns must be non-empty ASCII: ${JSON.stringify(pattern)}`);
    }
    longest = Math.max(longest, pattern.length);
    for (let i = 0; i < pattern.length; i++) {
      const code = codeOf(pattern.charCodeAt(i));
      if (symbols[code] === 0) symbols[code] = next++;
    }
  }
  for (let code = 0; code < 128; code++) symbols[code] = symbols[codeOf(code)]!;
  let shift = 0;
  while (1 << shift < next) shift++;
  const width = 1 << shift;
  const capacity = patterns.reduce((sum, pattern) => sum + pattern.length, 1);
  // The trie, as lists of siblings: each state's first child, next sibling, and the symbol into it.
  const firstChild = new Int32Array(capacity);
  const nextSibling = new Int32Array(capacity);
  const symbolInto = new Uint8Array(capacity);
  const ends = new Uint8Array(capacity);
  let states = 1;
  for (const [p, pattern] of patterns.entries()) {
    let state = 0;
    for (let i = 0; i < pattern.length; i++) {
      const symbol = symbols[pattern.charCodeAt(i)]!;
      let child = firstChild[state]!;
      while (child !== 0 && symbolInto[child] !== symbol) child = nextSibling[child]!;
      if (child === 0) {
        child = states++;
        symbolInto[child] = symbol;
        nextSibling[child] = firstChild[state]!;
        firstChild[state] = child;
      }
      state = child;
    }
    ends[state]! |= classes[p] ?? 1;
  }
  if (states > 0x7fff) throw new Error(`envelope patterns need ${states} states, more than a 16-bit table holds`);
  // Breadth first: a state's row is its failure link's row (complete, as that state is shallower)
  // with its own edges written over it; an edge into a state where a pattern ends is stored as its
  // complement. Each state's failure link and classes are known once its parent's row is.
  const table = new Int16Array(states * width);
  const fail = new Int32Array(states);
  const queue = new Int32Array(states);
  let tail = 0;
  for (let child = firstChild[0]!; child !== 0; child = nextSibling[child]!) {
    table[symbolInto[child]!] = ends[child] ? ~child : child;
    queue[tail++] = child;
  }
  for (let head = 0; head < tail; head++) {
    const state = queue[head]!;
    const row = state * width;
    const failRow = fail[state]! * width;
    table.copyWithin(row, failRow, failRow + width);
    for (let child = firstChild[state]!; child !== 0; child = nextSibling[child]!) {
      const viaFail = table[failRow + symbolInto[child]!]!;
      const link = viaFail < 0 ? ~viaFail : viaFail;
      fail[child] = link;
      ends[child]! |= ends[link]!;
      table[row + symbolInto[child]!] = ends[child] ? ~child : child;
      queue[tail++] = child;
    }
  }
  return { table, classes: ends.slice(0, states), symbols, shift, longest };
}

/**
 * An automaton built ahead (scripts/generate-envelope-automaton.ts): the patterns' fingerprint, the
 * shape, and the table, the states' classes and the symbols, deflated, in base64 lines.
 */
export interface PrebuiltAutomaton {
  fingerprint: string;
  states: number;
  shift: number;
  longest: number;
  data: readonly string[];
}

/**
 * A fingerprint of patterns and their classes: their count, and zlib's CRC-32 of the patterns and of
 * the classes (native: hashing the 24,000 characters of the decoder's patterns in JavaScript took
 * longer, on a cold start, than inflating the automaton). A collision would make the decoder take an
 * automaton of other patterns, which the test of the one shipped catches before it ships.
 */
export function fingerprintOf(patterns: readonly string[], classes: readonly number[] = []): string {
  const classList = patterns.map((_, p) => classes[p] ?? 1).join(',');
  // Each pattern with its length before it: no two lists give the same text.
  const patternList = patterns.map((pattern) => `${pattern.length}:${pattern}`).join('');
  return [patterns.length, crc32(patternList), crc32(classList)].map((n) => n.toString(16)).join('-');
}

/** `automaton` as `PrebuiltAutomaton` data: the table (16-bit, little-endian), the classes, the symbols, deflated. */
export function prebuiltDataOf(automaton: Automaton): Buffer {
  const table = Buffer.alloc(automaton.table.length * 2);
  for (let i = 0; i < automaton.table.length; i++) table.writeInt16LE(automaton.table[i]!, 2 * i);
  return deflateRawSync(Buffer.concat([table, automaton.classes, automaton.symbols]), { level: 9 });
}

/**
 * The automaton of `prebuilt` when it was built for these patterns and classes, else undefined (the
 * caller builds it). Inflating its 1.9 MB takes a third of building it, on the first delivery.
 */
export function prebuiltAutomaton(
  prebuilt: PrebuiltAutomaton,
  patterns: readonly string[],
  classes?: readonly number[],
): Automaton | undefined {
  if (prebuilt.fingerprint !== fingerprintOf(patterns, classes)) return undefined;
  const { states, shift, longest } = prebuilt;
  const entries = states << shift;
  const size = 2 * entries + states + 256;
  let bytes: Buffer;
  try {
    // One output chunk of the known size: no concatenation of 16 KB chunks after.
    bytes = inflateRawSync(Buffer.from(prebuilt.data.join(''), 'base64'), {
      chunkSize: size + 64,
      maxOutputLength: size,
    });
  } catch {
    return undefined;
  }
  if (bytes.length !== size) return undefined;
  // The table read in place where it is aligned and little-endian, as zlib's one chunk is.
  const table =
    LITTLE_ENDIAN && bytes.byteOffset % 2 === 0
      ? new Int16Array(bytes.buffer, bytes.byteOffset, entries)
      : Int16Array.from({ length: entries }, (_, i) => bytes.readInt16LE(2 * i));
  return {
    table,
    classes: bytes.subarray(2 * entries, 2 * entries + states),
    symbols: bytes.subarray(2 * entries + states),
    shift,
    longest,
  };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Where patterns end: the offset of the last byte, and the classes of the patterns ending there. */
export interface Hits {
  count: number;
  positions: Int32Array;
  classes: Uint8Array;
}

export class EnvelopeScan {
  private readonly memory: WasmMemory;
  private bytes: Uint8Array;
  private params: Int32Array;
  private readonly text: number;
  private readonly longest: number;
  private readonly classes: Uint8Array;
  private found = { positions: new Int32Array(0), classes: new Uint8Array(0) };
  private readonly scan1: (from: number, to: number) => void;
  private readonly scanN: (from: number, to: number) => void;

  private constructor(automaton: Automaton) {
    const { table, symbols, shift, longest, classes } = automaton;
    this.longest = longest;
    this.classes = classes;
    this.text = align(TABLE + table.byteLength, 16);
    this.memory = new Wasm.Memory({ initial: Math.ceil((this.text + PAGE) / PAGE) });
    this.bytes = new Uint8Array(this.memory.buffer);
    this.params = new Int32Array(this.memory.buffer, PARAMS, 3 * MAX_LANES);
    // Doubled: with the state shifted one bit further, their sum is the byte offset of the entry.
    this.bytes.set(
      symbols.map((symbol) => symbol * 2),
      SYMBOLS,
    );
    new Int16Array(this.memory.buffer, TABLE, table.length).set(table);
    const exports = new Wasm.Instance(hitsModule(shift), { m: { memory: this.memory } }).exports;
    this.scan1 = exports.scan1 as (from: number, to: number) => void;
    this.scanN = exports[`scan${LANES}`] as (from: number, to: number) => void;
  }

  /**
   * A scanner for `patterns` (of `classes`, as `automatonOf`), from `prebuilt` where it was built for
   * them, or undefined where WebAssembly is not available.
   */
  static of(
    patterns: readonly string[],
    classes?: readonly number[],
    prebuilt?: PrebuiltAutomaton,
  ): EnvelopeScan | undefined {
    if (typeof Wasm !== 'object') return undefined;
    const automaton = (prebuilt && prebuiltAutomaton(prebuilt, patterns, classes)) ?? automatonOf(patterns, classes);
    return new EnvelopeScan(automaton);
  }

  /**
   * Every byte of `source` where a pattern ends, in order, with the classes of the patterns ending
   * there; undefined when a part finds more than `capacity`. The arrays are the scanner's own, valid
   * until its next scan.
   */
  hits(source: Uint8Array, capacity: number): Hits | undefined {
    const n = source.length;
    const perLane = 2 * (capacity + 1);
    const out = align(this.text + n, 16);
    const need = out + LANES * perLane * 4;
    if (need > this.bytes.length) this.grow(need);
    const from = this.text;
    this.bytes.set(source, from);
    const longest = this.longest;
    let lanes = LANES;
    // Part j starts at j × step, the last one ends with the text; each runs `longest − 1` bytes past
    // the next one's start, so that every occurrence ends inside a part it starts in.
    let step = Math.ceil((n - longest + 1) / lanes);
    if (n < 4 * longest) {
      lanes = 1;
      step = n;
    }
    const length = lanes === 1 ? n : step + longest - 1;
    const params = this.params;
    for (let lane = 0; lane < lanes; lane++) {
      params[lane] = lane === lanes - 1 ? n - length : lane * step;
      params[MAX_LANES + lane] = out + lane * perLane * 4;
      params[2 * MAX_LANES + lane] = out + (lane + 1) * perLane * 4 - 8;
    }
    if (lanes === 1) this.scan1(from, from + length);
    else this.scanN(from, from + length);
    let count = 0;
    for (let lane = 0; lane < lanes; lane++) {
      const found = (params[MAX_LANES + lane]! - (out + lane * perLane * 4)) / 8;
      if (found > capacity) return undefined;
      count += found;
    }
    // Read before the next scan (the decoder's walk does): kept from scan to scan, not allocated.
    if (this.found.positions.length < count)
      this.found = { positions: new Int32Array(count), classes: new Uint8Array(count) };
    const { positions, classes } = this.found;
    const words = new Int32Array(this.memory.buffer);
    const stateClasses = this.classes;
    let at = 0;
    // A hit of part j + 1 before the end of part j is one of part j's too: each is taken once, in
    // order. Past that end, part j + 1 has read `longest − 1` bytes or more, so its state there is the
    // one a single pass would have, and so are the classes.
    let seen = 0;
    for (let lane = 0; lane < lanes; lane++) {
      const first = (out + lane * perLane * 4) / 4;
      const last = params[MAX_LANES + lane]! / 4;
      for (let word = first; word < last; word += 2) {
        const position = words[word]! - from;
        if (position < seen) continue;
        positions[at] = position;
        classes[at++] = stateClasses[words[word + 1]!]!;
      }
      seen = params[lane]! + length;
    }
    return { count: at, positions, classes };
  }

  private grow(bytes: number): void {
    this.memory.grow(Math.ceil((bytes - this.bytes.length) / PAGE));
    this.bytes = new Uint8Array(this.memory.buffer);
    this.params = new Int32Array(this.memory.buffer, PARAMS, 3 * MAX_LANES);
  }
}

const align = (value: number, to: number) => Math.ceil(value / to) * to;

// WebAssembly opcodes used below.

/**
 * The module: `scan1` and `scan4` (from, to): part 0 runs from `from` to `to`, part j the same
 * length from `from + offset[j]` (PARAMS). Part j writes the address of each byte where a pattern
 * ends, and the state it reached, at its output address (OUTPUTS) and advances it, while that is at
 * most its limit (LIMITS); past that, it only counts on.
 */
function hitsModule(shift: number): object {
  const lanes = [1, LANES];
  const bodies = lanes.map((count) => hitsBody(count, shift));
  const type = [0x60, 2, I32, I32, 0];
  return new Wasm.Module(
    moduleBytes(
      type,
      lanes.map((count) => `scan${count}`),
      bodies,
    ),
  );
}

/**
 * One function's body. Locals: 0 `from` (part 0's position), 1 `to`; for each part j its state and
 * its offset; then the position, the next state and the output address, shared by the parts.
 */
function hitsBody(lanes: number, shift: number): number[] {
  const state = (lane: number) => 2 + 2 * lane;
  const offset = (lane: number) => 3 + 2 * lane;
  const at = 2 + 2 * lanes;
  const target = at + 1;
  const output = at + 2;
  const locals = 2 * lanes + 3;
  const code: number[] = [];
  for (let lane = 1; lane < lanes; lane++) {
    code.push(I32_CONST, 0, I32_LOAD, 2, ...unsigned(PARAMS + 4 * lane), LOCAL_SET, offset(lane));
  }
  code.push(BLOCK, VOID, LOOP, VOID);
  code.push(LOCAL_GET, 0, LOCAL_GET, 1, I32_GE_U, BR_IF, 1);
  for (let lane = 0; lane < lanes; lane++) {
    if (lane === 0) code.push(LOCAL_GET, 0, LOCAL_SET, at);
    else code.push(LOCAL_GET, 0, LOCAL_GET, offset(lane), I32_ADD, LOCAL_SET, at);
    // next = table[state << shift | symbol], at byte (state << shift + 1 | 2 × symbol).
    code.push(LOCAL_GET, state(lane), I32_CONST, ...signed(shift + 1), I32_SHL);
    code.push(LOCAL_GET, at, I32_LOAD8_U, 0, 0, I32_LOAD8_U, 0, ...unsigned(SYMBOLS), I32_OR);
    code.push(I32_LOAD16_S, 1, ...unsigned(TABLE));
    code.push(LOCAL_TEE, target, I32_CONST, 0, I32_LT_S, IF, VOID);
    // A pattern ends here: note where and in which state (while there is room), count it, go on
    // from the state itself.
    code.push(LOCAL_GET, target, I32_CONST, ...signed(-1), I32_XOR, LOCAL_SET, target);
    code.push(I32_CONST, 0, I32_LOAD, 2, ...unsigned(OUTPUTS + 4 * lane), LOCAL_TEE, output);
    code.push(I32_CONST, 0, I32_LOAD, 2, ...unsigned(LIMITS + 4 * lane), I32_LE_U, IF, VOID);
    code.push(LOCAL_GET, output, LOCAL_GET, at, I32_STORE, 2, 0);
    code.push(LOCAL_GET, output, LOCAL_GET, target, I32_STORE, 2, 4, END);
    code.push(I32_CONST, 0, LOCAL_GET, output, I32_CONST, 8, I32_ADD, I32_STORE, 2, ...unsigned(OUTPUTS + 4 * lane));
    code.push(END);
    code.push(LOCAL_GET, target, LOCAL_SET, state(lane));
  }
  code.push(LOCAL_GET, 0, I32_CONST, 1, I32_ADD, LOCAL_SET, 0, BR, 0, END, END);
  code.push(END);
  return [1, ...unsigned(locals), I32, ...code];
}
