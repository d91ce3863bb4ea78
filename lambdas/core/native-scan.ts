import {
  BLOCK,
  BR,
  BR_IF,
  END,
  I32,
  I32_ADD,
  I32_CONST,
  I32_GE_U,
  I32_LOAD,
  I32_LOAD16_S,
  I32_LOAD8_U,
  I32_LT_S,
  I32_OR,
  I32_SHL,
  IF,
  LOCAL_GET,
  LOCAL_SET,
  LOCAL_TEE,
  LOOP,
  moduleBytes,
  RETURN,
  signed,
  unsigned,
  VOID,
  Wasm,
  type WasmMemory,
} from './wasm-encoding';
/**
 * The prefilter's automaton pass (`SubstringMatcher.test` with every row) in WebAssembly, over up to
 * three parts of a line at once. The JavaScript loop pays for `charCodeAt` on every character and
 * leaves the processor one dependent chain of lookups (state → next state) to follow; here the line
 * is copied once as UTF-8 (`TextEncoder.encodeInto`, native) and two or three independent chains
 * advance together. Measured on the raw mix (npm run bench, interleaved rounds): the pass over every line
 * about 35 % faster than the JavaScript loop; one chain alone gains nothing.
 *
 * Same answers as the JavaScript loop (test/core/prefilter.test.ts holds them together):
 * - A character outside ASCII takes the automaton back to its root (no pattern holds one, so it has
 *   no edge anywhere), and so do the two to four bytes UTF-8 writes for it, all ≥ 0x80.
 * - A line of n bytes is scanned as overlapping parts: a pattern at most `longest` bytes long that
 *   starts in one part's first `step` bytes ends inside that part, which runs `longest − 1` bytes
 *   further; every start lies in some part's first `step` bytes. Each part starts at the root.
 */

/** Layout of the memory: symbol of each byte (doubled), the parts' offsets, the transition table, the line. */
const SYMBOLS = 0;
const OFFSETS = 256;
const TABLE = 272;
const PAGE = 65536;
/** Longer lines are left to the JavaScript loop (a CloudWatch event is at most 256 KB). */
const MAX_TEXT_BYTES = 4 * 1024 * 1024;
/** The functions of the module: a line is scanned as this many parts at once. */
const LANES = [2, 3];
const MAX_LANES = 3;

export class NativeScan {
  private readonly memory: WasmMemory;
  private bytes: Uint8Array;
  private offsets: Int32Array;
  /** Where the line is copied: a view kept, not made for each line. */
  private line: Uint8Array;
  private readonly text: number;
  private readonly encoder = new TextEncoder();
  /** `scans[k]` scans k parts at once. */
  private readonly scans: Array<(from: number, to: number) => number>;

  private constructor(
    table: Int16Array,
    symbols: Uint8Array,
    shift: number,
    private readonly longest: number,
  ) {
    this.text = align(TABLE + table.byteLength, 16);
    this.memory = new Wasm.Memory({ initial: Math.ceil((this.text + PAGE) / PAGE) });
    this.bytes = new Uint8Array(this.memory.buffer);
    this.offsets = new Int32Array(this.memory.buffer, OFFSETS, MAX_LANES);
    this.line = this.bytes.subarray(this.text);
    // Each byte's symbol, doubled: with the state shifted one bit further, their sum is the byte
    // offset of the 16-bit entry, one shift less per character.
    this.bytes.set(
      symbols.subarray(0, 128).map((symbol) => symbol * 2),
      SYMBOLS,
    );
    new Int16Array(this.memory.buffer, TABLE, table.length).set(table);
    const exports = new Wasm.Instance(scanModule(shift), { m: { memory: this.memory } }).exports;
    this.scans = [];
    for (const lanes of LANES) this.scans[lanes] = exports[`scan${lanes}`] as (from: number, to: number) => number;
  }

  /**
   * A scanner for a complete table of `Int16Array` rows (`state << shift | symbol`, a negative entry
   * where a pattern ends), or undefined where WebAssembly is not available.
   */
  static of(table: Int16Array, symbols: Uint8Array, shift: number, longest: number): NativeScan | undefined {
    if (typeof Wasm !== 'object') return undefined;
    return new NativeScan(table, symbols, shift, longest);
  }

  /**
   * Whether `text` holds a pattern; undefined when it is too short to gain from parts (under twice
   * the longest pattern, where the JavaScript loop is as fast) or too long for this scanner.
   */
  test(text: string): boolean | undefined {
    const longest = this.longest;
    const room = text.length * 3;
    if (text.length < 2 * longest || room > MAX_TEXT_BYTES) return undefined;
    if (this.text + room > this.bytes.length) this.grow(this.text + room);
    const from = this.text;
    const n = this.encoder.encodeInto(text, this.line).written;
    // n ≥ text.length ≥ 2 × longest: two parts at least. A part j < lanes − 1 starts at j × step, the
    // last one ends with the line; the one before the last must end within it too.
    let lanes = Math.min(MAX_LANES, Math.floor(n / longest));
    for (; lanes > 2; lanes--) {
      const step = Math.ceil((n - longest + 1) / lanes);
      if ((lanes - 1) * step + longest - 1 <= n) break;
    }
    const step = Math.ceil((n - longest + 1) / lanes);
    const length = step + longest - 1;
    for (let lane = 1; lane < lanes - 1; lane++) this.offsets[lane] = lane * step;
    this.offsets[lanes - 1] = n - length;
    return this.scans[lanes]!(from, from + length) === 1;
  }

  private grow(bytes: number): void {
    this.memory.grow(Math.ceil((bytes - this.bytes.length) / PAGE));
    this.bytes = new Uint8Array(this.memory.buffer);
    this.offsets = new Int32Array(this.memory.buffer, OFFSETS, MAX_LANES);
    this.line = this.bytes.subarray(this.text);
  }
}

const align = (value: number, to: number) => Math.ceil(value / to) * to;

// WebAssembly opcodes used below.

/**
 * The module: `scan2`, `scan3` (from, to) → 1 when a pattern ends in one of the parts, else 0.
 * Part 0 runs from `from` to `to`; part j the same length from `from + offset[j]`.
 */
function scanModule(shift: number): object {
  const bodies = LANES.map((lanes) => scanBody(lanes, shift));
  const type = [0x60, 2, I32, I32, 1, I32];
  return new Wasm.Module(
    moduleBytes(
      type,
      LANES.map((lanes) => `scan${lanes}`),
      bodies,
    ),
  );
}

/**
 * One function's body. Locals: 0 `from` (part 0's position), 1 `to`; then for each part j a state
 * (2 + 3j), the next state (3 + 3j) and its offset (4 + 3j), and a position for parts past the first.
 */
function scanBody(lanes: number, shift: number): number[] {
  const state = (lane: number) => 2 + 3 * lane;
  const target = (lane: number) => 3 + 3 * lane;
  const offset = (lane: number) => 4 + 3 * lane;
  const position = (lane: number) => 2 + 3 * lanes + lane;
  const locals = 4 * lanes;
  const code: number[] = [];
  for (let lane = 1; lane < lanes; lane++) {
    code.push(I32_CONST, 0, I32_LOAD, 2, ...unsigned(OFFSETS + 4 * lane), LOCAL_SET, offset(lane));
  }
  code.push(BLOCK, VOID, LOOP, VOID);
  code.push(LOCAL_GET, 0, LOCAL_GET, 1, I32_GE_U, BR_IF, 1);
  for (let lane = 0; lane < lanes; lane++) {
    let at = 0;
    if (lane > 0) {
      at = position(lane);
      code.push(LOCAL_GET, 0, LOCAL_GET, offset(lane), I32_ADD, LOCAL_SET, at);
    }
    // next = table[state << shift | symbol] at byte (state << shift + 1 | 2 × symbol); a negative
    // entry: a pattern ends here.
    code.push(LOCAL_GET, state(lane), I32_CONST, ...signed(shift + 1), I32_SHL);
    code.push(LOCAL_GET, at, I32_LOAD8_U, 0, 0, I32_LOAD8_U, 0, ...unsigned(SYMBOLS), I32_OR);
    code.push(I32_LOAD16_S, 1, ...unsigned(TABLE));
    code.push(LOCAL_TEE, target(lane), I32_CONST, 0, I32_LT_S, IF, VOID, I32_CONST, 1, RETURN, END);
    code.push(LOCAL_GET, target(lane), LOCAL_SET, state(lane));
  }
  code.push(LOCAL_GET, 0, I32_CONST, 1, I32_ADD, LOCAL_SET, 0, BR, 0, END, END);
  code.push(I32_CONST, 0, END);
  return [1, ...unsigned(locals), I32, ...code];
}
