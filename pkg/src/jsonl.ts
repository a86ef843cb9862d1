// JSONL, the on-disk form of a log: one entry per line, read by the file
// store in chunks of any size. The rules (the core's reader in src/jsonl.rs
// keeps the same ones, except that it ends lines at "\n" only):
// - a line ends at "\n", "\r\n" or a lone "\r" (JSON text never holds a raw
//   CR or LF inside a string, and the store itself only writes "\n");
// - a UTF-8 byte order mark at the very start of the file is not data;
// - a blank line is skipped; a line that is not JSON (or not UTF-8) is left
//   out and reported, never replaced or removed;
// - the last line may lack its line end: if it is JSON it is an entry (a
//   hand-written file), else it is a write cut off by a crash ("torn"). The
//   store writes objects only, and no strict prefix of an object is JSON.
import { isUtf8 } from "node:buffer";

/** What one line holds: an entry, nothing (blank), or something unreadable. */
type Line = { entry: unknown } | "blank" | { error: string };

function readLine(text: string): Line {
  if (text.trim() === "") return "blank";
  try {
    return { entry: JSON.parse(text) as unknown };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** A line longer than this cannot become a JS string: it is unreadable, not an error. */
const MAX_LINE_BYTES = 0x1fffffe8;

/**
 * Reads JSONL bytes fed in chunks of any size by the rules above, never
 * holding more than one line as text. It counts the
 * entries it sees and keeps those from index `keepFrom` on.
 *
 * @example
 * const scan = new JsonlScanner({ offset: 0, count: 0 }, 0);
 * for (const chunk of chunks) scan.push(chunk);
 * const { entries, count } = scan.end();
 */
export class JsonlScanner {
  /** Entries with index >= `keepFrom`, in order. */
  readonly entries: unknown[] = [];
  /** Entries seen so far (from index 0, counting those before the start point). */
  count: number;
  /** Absolute offset just past the last complete line, and the entries up to there. */
  checkpoint: { offset: number; count: number };
  /** Whether the bytes so far end inside a line: a writer must add "\n" first. */
  openLine = false;

  readonly #keepFrom: number;
  readonly #maxLine: number;
  /** Absolute offset of the next byte pushed. */
  #offset: number;
  /** The current line's bytes so far (null once it is too long to keep). */
  #pieces: Buffer[] | null = [];
  #pieceBytes = 0;
  #lineStart: number;
  /** The last byte pushed was a CR: a LF right after it ends the same line. */
  #afterCR = false;

  /**
   * Starts at `from.offset`, which must be 0 or just past a line end, where
   * `from.count` entries lie before it.
   */
  constructor(from: { offset: number; count: number }, keepFrom: number, maxLineBytes = MAX_LINE_BYTES) {
    this.#offset = from.offset;
    this.#lineStart = from.offset;
    this.count = from.count;
    this.checkpoint = { ...from };
    this.#keepFrom = keepFrom;
    this.#maxLine = maxLineBytes;
  }

  push(chunk: Buffer): void {
    let pos = 0;
    if (this.#afterCR && chunk.length > 0) {
      this.#afterCR = false;
      if (chunk[0] === 0x0a) {
        pos = 1; // the LF of a CRLF split between chunks
        this.#lineStart = this.#offset + 1;
        this.checkpoint = { offset: this.#offset + 1, count: this.count };
      }
    }
    let lf = chunk.indexOf(0x0a, pos);
    let cr = chunk.indexOf(0x0d, pos);
    while (lf !== -1 || cr !== -1) {
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      this.#collect(chunk, pos, end);
      this.#endLine();
      pos = end + 1;
      if (chunk[end] === 0x0d) {
        if (end + 1 < chunk.length) {
          if (chunk[end + 1] === 0x0a) pos++;
        } else {
          this.#afterCR = true;
        }
      }
      this.#lineStart = this.#offset + pos;
      this.checkpoint = { offset: this.#offset + pos, count: this.count };
      if (lf !== -1 && lf < pos) lf = chunk.indexOf(0x0a, pos);
      if (cr !== -1 && cr < pos) cr = chunk.indexOf(0x0d, pos);
    }
    this.#collect(chunk, pos, chunk.length);
    this.#offset += chunk.length;
    if (chunk.length > 0) this.openLine = this.#offset > this.#lineStart || this.#pieceBytes > 0;
  }

  /** Reads the last line (one without a line end) and returns the result. */
  end(): this {
    if (this.#pieceBytes > 0 || this.#pieces === null) this.#endLine();
    return this;
  }

  #collect(chunk: Buffer, start: number, end: number): void {
    if (end <= start) return;
    this.#pieceBytes += end - start;
    if (this.#pieces === null) return;
    if (this.#pieceBytes > this.#maxLine) {
      this.#pieces = null; // too long to ever be a string: skip to its end
      return;
    }
    this.#pieces.push(chunk.subarray(start, end));
  }

  #endLine(): void {
    const pieces = this.#pieces;
    this.#pieces = [];
    this.#pieceBytes = 0;
    if (pieces === null) return; // too long: unreadable
    let bytes = pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
    if (this.#lineStart === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    if (bytes.length === 0 || !isUtf8(bytes)) return; // blank, or unreadable rather than U+FFFD
    const line = readLine(bytes.toString("utf8"));
    if (line === "blank" || !("entry" in line)) return;
    if (this.count >= this.#keepFrom) this.entries.push(line.entry);
    this.count++;
  }
}
