/**
 * Statistics of one result column, computed from the JSON text of each value as it is written:
 * the smallest and largest value and the number of distinct values (counted up to a cap). Nothing
 * is allocated per value: distinct values are remembered as 32-bit hashes of their JSON text in an
 * open-addressing table, and the current min and max are kept as copies of their JSON text.
 */
export const UNIQUE_CAP = 100_000;

const NULL_BYTE = 0x6e; // 'n' of null

export class ColumnStats {
  private minKey = NaN;
  private maxKey = NaN;
  private readonly min = new TextSlot();
  private readonly max = new TextSlot();
  private readonly seen = new HashSet();

  /**
   * @param numeric compare values by their numeric key (numbers, booleans) instead of their text
   * @param zSortsFirst date-times: a `Z` ends the value, so `…05Z` sorts before `…05.5Z`
   */
  constructor(
    private readonly numeric: boolean,
    private readonly zSortsFirst = false,
  ) {}

  /** Takes the value written at `buf[start, end)`; `key` is its numeric key (numeric columns). */
  see(buf: Uint8Array, start: number, end: number, key: number): void {
    if (buf[start] === NULL_BYTE) return;
    if (this.seen.size < UNIQUE_CAP) this.seen.add(buf, start, end);
    if (this.numeric) {
      if (Number.isNaN(key)) return;
      if (!(key >= this.minKey)) {
        this.minKey = key;
        this.min.set(buf, start, end);
      }
      if (!(key <= this.maxKey)) {
        this.maxKey = key;
        this.max.set(buf, start, end);
      }
      return;
    }
    if (this.min.empty || this.min.compare(buf, start, end, this.zSortsFirst) > 0) this.min.set(buf, start, end);
    if (this.max.empty || this.max.compare(buf, start, end, this.zSortsFirst) < 0) this.max.set(buf, start, end);
  }

  get uniqueCount(): number {
    return this.seen.size;
  }

  minValue(): unknown {
    return this.min.value();
  }

  maxValue(): unknown {
    return this.max.value();
  }
}

const decoder = new TextDecoder();

/** A copy of one value's JSON text, reused as the value changes. */
class TextSlot {
  private bytes = new Uint8Array(32);
  private len = -1;

  get empty(): boolean {
    return this.len < 0;
  }

  set(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    if (n > this.bytes.length) this.bytes = new Uint8Array(n * 2);
    const b = this.bytes;
    for (let i = 0; i < n; i++) b[i] = src[start + i]!;
    this.len = n;
  }

  /** Compares this text with `src[start, end)`: < 0 when this sorts first. */
  compare(src: Uint8Array, start: number, end: number, zSortsFirst: boolean): number {
    const a = this.bytes;
    const n = Math.min(this.len, end - start);
    for (let i = 0; i < n; i++) {
      let x = a[i]!;
      let y = src[start + i]!;
      if (x === y) continue;
      // The closing quote (and a date-time's Z) ends the shorter value: it sorts first.
      if (x === 0x22 || (zSortsFirst && x === 0x5a)) x = 0;
      if (y === 0x22 || (zSortsFirst && y === 0x5a)) y = 0;
      return x - y;
    }
    return this.len - (end - start);
  }

  value(): unknown {
    if (this.len < 0) return null;
    try {
      return JSON.parse(decoder.decode(this.bytes.subarray(0, this.len)));
    } catch {
      return null;
    }
  }
}

/**
 * A set of 32-bit hashes of byte strings (MurmurHash3) in an open-addressing table
 * that grows as needed: at the cap it holds 1 MB, and a collision among 100,000 distinct values is
 * expected about once, so counts are exact in practice.
 */
class HashSet {
  size = 0;
  private slots = new Int32Array(1024);

  add(src: Uint8Array, start: number, end: number): void {
    this.insert(hashBytes(src, start, end) || 1);
  }

  private insert(h: number): void {
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = h & mask;
    for (;;) {
      const s = slots[i]!;
      if (s === 0) {
        slots[i] = h;
        if (++this.size * 2 > slots.length) this.grow();
        return;
      }
      if (s === h) return;
      i = (i + 1) & mask;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    this.size = 0;
    for (let i = 0; i < old.length; i++) if (old[i] !== 0) this.insert(old[i]!);
  }
}

/** MurmurHash3 (x86, 32-bit) of `src[start, end)`, four bytes per step. */
export function hashBytes(src: Uint8Array, start: number, end: number): number {
  let h = 0x9747b28c ^ (end - start);
  let i = start;
  for (; i + 3 < end; i += 4) {
    let k = src[i]! | (src[i + 1]! << 8) | (src[i + 2]! << 16) | (src[i + 3]! << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  switch (end - i) {
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: MurmurHash3 tail, each case adds one more byte
    case 3:
      k ^= src[i + 2]! << 16; // falls through
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: as above
    case 2:
      k ^= src[i + 1]! << 8; // falls through
    case 1:
      k ^= src[i]!;
      k = Math.imul(k, 0xcc9e2d51);
      k = (k << 15) | (k >>> 17);
      k = Math.imul(k, 0x1b873593);
      h ^= k;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}
