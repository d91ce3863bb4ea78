/**
 * `SubstringMatcher.findAll`'s pass in WebAssembly: the text copied once as UTF-8
 * (`TextEncoder.encodeInto`, native), then one loop over its bytes that follows the automaton (complete
 * rows near the root, each deeper state its own edges and a failure link) and, where a pattern ends,
 * the dictionary links, writing each pattern found the first time into a list. The JavaScript loop
 * pays for `charCodeAt` and bounds checks on every character; on the classifier's records (filtered
 * stream of npm run bench) this pass costs about a quarter of it.
 *
 * Same answers, in the same order, as the JavaScript loop (test/core/substring-matcher.test.ts holds
 * them together): a character outside ASCII takes the automaton back to its root (no pattern holds one,
 * so it has no edge anywhere), and so do the two to four bytes UTF-8 writes for it, all ≥ 0x80.
 *
 * Patterns found are marked with the number of the scan (`generation`), not cleared between scans.
 */

/** The part of the WebAssembly API used here (the project's type libraries do not declare it). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
};

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

const PAGE = 65536;
/** Longer texts are left to the JavaScript loop (a CloudWatch event is at most 256 KB). */
const MAX_TEXT_BYTES = 4 * 1024 * 1024;

export class NativeFind {
  private readonly memory: WasmMemory;
  private readonly encoder = new TextEncoder();
  private readonly find: (from: number, to: number, generation: number) => number;
  /** Where the text is copied (views kept, not made for each text; remade when the memory grows). */
  private readonly textAt: number;
  private line: Uint8Array;
  private list: Int32Array;
  private generation = 0;

  private constructor(tables: FindTables) {
    const patterns = tables.sameEnd.length;
    const deep = tables.fail.length;
    // Layout: byte → doubled symbol; dense rows; deep states' first edges (as byte offsets) and
    // failures; edges packed (target << 8 | doubled symbol); outputs and dictionary links by state;
    // the next pattern with the same end and the mark by 1 + pattern index; the list; the text.
    const layout = new Layout();
    const symbolsAt = layout.take(256);
    const tableAt = layout.take(tables.next.byteLength);
    const edgesAt = layout.take(4 * (deep + 1));
    const failAt = layout.take(4 * deep);
    const packedAt = layout.take(4 * tables.edgeSymbol.length);
    const outputAt = layout.take(4 * tables.output.length);
    const dictionaryAt = layout.take(4 * tables.dictionary.length);
    const sameEndAt = layout.take(4 * (patterns + 1));
    const marksAt = layout.take(4 * (patterns + 1));
    const listAt = layout.take(4 * patterns);
    this.textAt = layout.take(0);
    this.memory = new WebAssembly.Memory({ initial: Math.ceil((this.textAt + PAGE) / PAGE) });
    const buffer = this.memory.buffer;
    const bytes = new Uint8Array(buffer);
    for (let code = 0; code < 128; code++) bytes[symbolsAt + code] = tables.symbols[code]! * 2;
    new Int16Array(buffer, tableAt, tables.next.length).set(tables.next);
    const edges = new Int32Array(buffer, edgesAt, deep + 1);
    for (let state = 0; state <= deep; state++) edges[state] = packedAt + 4 * tables.edges[state]!;
    new Int32Array(buffer, failAt, deep).set(tables.fail);
    const packed = new Int32Array(buffer, packedAt, tables.edgeSymbol.length);
    for (let edge = 0; edge < packed.length; edge++) {
      packed[edge] = (tables.edgeTarget[edge]! << 8) | (tables.edgeSymbol[edge]! * 2);
    }
    new Int32Array(buffer, outputAt, tables.output.length).set(tables.output);
    new Int32Array(buffer, dictionaryAt, tables.dictionary.length).set(tables.dictionary);
    new Int32Array(buffer, sameEndAt + 4, patterns).set(tables.sameEnd);
    const code = findBody({
      shift: tables.shift,
      dense: tables.dense,
      symbolsAt,
      tableAt,
      edgesAt,
      failAt,
      outputAt,
      dictionaryAt,
      sameEndAt,
      marksAt,
      listAt,
    });
    const module = new WebAssembly.Module(moduleBytes(code));
    this.find = new WebAssembly.Instance(module, { m: { memory: this.memory } }).exports['find'] as (
      from: number,
      to: number,
      generation: number,
    ) => number;
    this.listAt = listAt;
    this.marksAt = marksAt;
    this.patterns = patterns;
    this.line = new Uint8Array(buffer, this.textAt);
    this.list = new Int32Array(buffer, listAt, patterns);
  }

  private readonly listAt: number;
  private readonly marksAt: number;
  private readonly patterns: number;

  /**
   * A finder for the automaton, or undefined where WebAssembly is not available or the automaton does
   * not fit 16-bit rows and 24-bit edge targets.
   */
  static of(tables: FindTables): NativeFind | undefined {
    if (typeof WebAssembly !== 'object' || tables.output.length >= 0x8000 || tables.shift > 7) return undefined;
    return new NativeFind(tables);
  }

  /**
   * The patterns `text` holds, as 1 + their indexes, in the order they are found, into `found` (from
   * its start); how many, or −1 when the text is too long for this finder.
   */
  findAll(text: string, found: Int32Array): number {
    const room = text.length * 3;
    if (room > MAX_TEXT_BYTES) return -1;
    if (this.textAt + room > this.memory.buffer.byteLength) this.grow(this.textAt + room);
    const written = this.encoder.encodeInto(text, this.line).written;
    // The marks are numbers of scans: one that wraps around starts them again from zero.
    if (++this.generation === 0x7fffffff) this.resetMarks();
    const count = this.find(this.textAt, this.textAt + written, this.generation);
    const list = this.list;
    for (let i = 0; i < count; i++) found[i] = list[i]!;
    return count;
  }

  private resetMarks(): void {
    this.generation = 1;
    new Int32Array(this.memory.buffer, this.marksAt, this.patterns + 1).fill(0);
  }

  private grow(bytes: number): void {
    this.memory.grow(Math.ceil((bytes - this.memory.buffer.byteLength) / PAGE));
    this.line = new Uint8Array(this.memory.buffer, this.textAt);
    this.list = new Int32Array(this.memory.buffer, this.listAt, this.patterns);
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
const I32 = 0x7f;
const BLOCK = 0x02;
const LOOP = 0x03;
const IF = 0x04;
const ELSE = 0x05;
const VOID = 0x40;
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const LOCAL_TEE = 0x22;
const I32_LOAD = 0x28;
const I32_LOAD8_U = 0x2d;
const I32_LOAD16_S = 0x2e;
const I32_STORE = 0x36;
const I32_CONST = 0x41;
const I32_EQZ = 0x45;
const I32_EQ = 0x46;
const I32_NE = 0x47;
const I32_LT_S = 0x48;
const I32_LT_U = 0x49;
const I32_GE_U = 0x4f;
const I32_ADD = 0x6a;
const I32_SUB = 0x6b;
const I32_AND = 0x71;
const I32_OR = 0x72;
const I32_XOR = 0x73;
const I32_SHL = 0x74;
const I32_SHR_S = 0x75;

// The function's parameters and locals.
const FROM = 0;
const TO = 1;
const GENERATION = 2;
const STATE = 3;
const COUNT = 4;
const SYMBOL = 5;
const TARGET = 6;
const EDGE = 7;
const END_EDGE = 8;
const DEEP = 9;
const AT = 10;
const INDEX = 11;
const LOCALS = 9;

const get = (local: number) => [LOCAL_GET, local];
const set = (local: number) => [LOCAL_SET, local];
const constant = (value: number) => [I32_CONST, ...signed(value)];
/** A 32-bit load or store at the address on the stack plus a fixed offset (alignment 4). */
const load = (offset: number) => [I32_LOAD, 2, ...unsigned(offset)];
const store = (offset: number) => [I32_STORE, 2, ...unsigned(offset)];
/** `value × 4` (an index into a table of 32-bit entries). */
const times4 = (local: number) => [...get(local), ...constant(2), I32_SHL];

/**
 * `find(from, to, generation)` → how many patterns the bytes from `from` to `to` hold, written as
 * 1 + their indexes into the list, in the order `SubstringMatcher.findAll` finds them.
 */
function findBody(at: {
  shift: number;
  dense: number;
  symbolsAt: number;
  tableAt: number;
  edgesAt: number;
  failAt: number;
  outputAt: number;
  dictionaryAt: number;
  sameEndAt: number;
  marksAt: number;
  listAt: number;
}): number[] {
  // prettier-ignore
  const code = [
    BLOCK, VOID, LOOP, VOID, // $chars (br 0 continues, br 1 leaves)
    ...get(FROM), ...get(TO), I32_GE_U, BR_IF, 1,
    ...get(FROM), I32_LOAD8_U, 0, 0, I32_LOAD8_U, 0, ...unsigned(at.symbolsAt), ...set(SYMBOL),
    // The next state: a shallow state's row, else a deep state's own edge, else its failure's.
    BLOCK, VOID, LOOP, VOID, // $found, $walk
    ...get(STATE), ...constant(at.dense), I32_LT_U,
    IF, VOID,
    ...get(STATE), ...constant(at.shift + 1), I32_SHL, ...get(SYMBOL), I32_OR,
    I32_LOAD16_S, 1, ...unsigned(at.tableAt), ...set(TARGET),
    BR, 2, // out of $found
    END,
    ...get(STATE), ...constant(at.dense), I32_SUB, ...constant(2), I32_SHL, ...set(DEEP),
    ...get(DEEP), ...load(at.edgesAt), ...set(EDGE),
    ...get(DEEP), ...load(at.edgesAt + 4), ...set(END_EDGE),
    BLOCK, VOID, LOOP, VOID, // $none, $edges
    ...get(EDGE), ...get(END_EDGE), I32_GE_U, BR_IF, 1,
    ...get(EDGE), ...load(0), LOCAL_TEE, TARGET, ...constant(255), I32_AND, ...get(SYMBOL), I32_EQ,
    IF, VOID,
    ...get(TARGET), ...constant(8), I32_SHR_S, ...set(TARGET),
    BR, 4, // out of $found
    END,
    ...get(EDGE), ...constant(4), I32_ADD, ...set(EDGE),
    BR, 0,
    END, END,
    ...get(DEEP), ...load(at.failAt), ...set(STATE),
    BR, 0, // $walk again from the failure
    END, END,
    // A pattern ends here: this state's own, then those of its suffixes (dictionary links).
    ...get(TARGET), ...constant(0), I32_LT_S,
    IF, VOID,
    ...get(TARGET), ...constant(-1), I32_XOR, LOCAL_TEE, STATE, ...set(AT),
    BLOCK, VOID, LOOP, VOID, // $suffixes
    ...get(AT), I32_EQZ, BR_IF, 1,
    ...times4(AT), ...load(at.outputAt), ...set(INDEX),
    BLOCK, VOID, LOOP, VOID, // $sameEnd
    ...get(INDEX), I32_EQZ, BR_IF, 1,
    ...times4(INDEX), ...load(at.marksAt), ...get(GENERATION), I32_NE,
    IF, VOID,
    ...times4(INDEX), ...get(GENERATION), ...store(at.marksAt),
    ...times4(COUNT), ...get(INDEX), ...store(at.listAt),
    ...get(COUNT), ...constant(1), I32_ADD, ...set(COUNT),
    END,
    ...times4(INDEX), ...load(at.sameEndAt), ...set(INDEX),
    BR, 0,
    END, END,
    ...times4(AT), ...load(at.dictionaryAt), ...set(AT),
    BR, 0,
    END, END,
    ELSE,
    ...get(TARGET), ...set(STATE),
    END,
    ...get(FROM), ...constant(1), I32_ADD, ...set(FROM),
    BR, 0,
    END, END,
    ...get(COUNT),
    END,
  ];
  return [1, ...unsigned(LOCALS), I32, ...code];
}

/** The module: one function `find` (i32, i32, i32) → i32 over the imported memory `m.memory`. */
function moduleBytes(body: number[]): Uint8Array {
  const type = [0x60, 3, I32, I32, I32, 1, I32];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, ...type]),
    ...section(2, [1, ...name('m'), ...name('memory'), 0x02, 0x00, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name('find'), 0x00, 0]),
    ...section(10, [1, ...unsigned(body.length), ...body]),
  ]);
}

const section = (id: number, body: number[]) => [id, ...unsigned(body.length), ...body];
const name = (text: string) => [...unsigned(text.length), ...Array.from(text, (char) => char.charCodeAt(0))];

/** LEB128, unsigned. */
function unsigned(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

/** LEB128, signed. */
function signed(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}
