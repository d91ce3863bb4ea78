/**
 * What the hand-assembled WebAssembly modules (native-scan.ts, native-find.ts, envelope-scan.ts)
 * are written with: the opcodes they use, LEB128 numbers, and the one module shape they share (one
 * function type, the memory imported as `m.memory`, each function exported under its name).
 */

/** A WebAssembly memory, as the modules here use it. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** The part of the WebAssembly API used here (the project's type libraries do not declare it). */
export const Wasm = (
  globalThis as unknown as {
    WebAssembly: {
      Memory: new (descriptor: { initial: number }) => WasmMemory;
      Module: new (bytes: Uint8Array) => object;
      Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
    };
  }
).WebAssembly;

export const I32 = 0x7f;
export const BLOCK = 0x02;
export const LOOP = 0x03;
export const IF = 0x04;
export const ELSE = 0x05;
export const END = 0x0b;
export const BR = 0x0c;
export const BR_IF = 0x0d;
export const RETURN = 0x0f;
export const LOCAL_GET = 0x20;
export const LOCAL_SET = 0x21;
export const LOCAL_TEE = 0x22;
export const I32_LOAD = 0x28;
export const I32_LOAD8_U = 0x2d;
export const I32_LOAD16_S = 0x2e;
export const I32_STORE = 0x36;
export const VOID = 0x40;
export const I32_CONST = 0x41;
export const I32_EQZ = 0x45;
export const I32_EQ = 0x46;
export const I32_NE = 0x47;
export const I32_LT_S = 0x48;
export const I32_LT_U = 0x49;
export const I32_LE_U = 0x4d;
export const I32_GE_U = 0x4f;
export const I32_ADD = 0x6a;
export const I32_SUB = 0x6b;
export const I32_AND = 0x71;
export const I32_OR = 0x72;
export const I32_XOR = 0x73;
export const I32_SHL = 0x74;
export const I32_SHR_S = 0x75;

const section = (id: number, body: number[]) => [id, ...unsigned(body.length), ...body];
const name = (text: string) => [...unsigned(text.length), ...Array.from(text, (char) => char.charCodeAt(0))];

/** The bytes of a module of `bodies`, all of type `type`, exported as `names`, over the imported memory. */
export function moduleBytes(type: number[], names: readonly string[], bodies: number[][]): Uint8Array {
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, ...type]),
    ...section(2, [1, ...name('m'), ...name('memory'), 0x02, 0x00, 1]),
    ...section(3, [bodies.length, ...bodies.map(() => 0)]),
    ...section(7, [bodies.length, ...names.flatMap((text, index) => [...name(text), 0x00, index])]),
    ...section(10, [bodies.length, ...bodies.flatMap((body) => [...unsigned(body.length), ...body])]),
  ]);
}

/** LEB128, unsigned. */
export function unsigned(value: number): number[] {
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
export function signed(value: number): number[] {
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
