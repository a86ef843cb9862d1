// JSONL, the on-disk form of a log: one entry per line, read by the file
// store in chunks of any size. Where lines end and which lines are entries is
// decided by the core's one JSONL reader (src/jsonl.rs, through `JsonlLines`),
// the same rules as `ChatState.fromJsonl`, the CLI and the preview:
// - a line ends at "\n", "\r\n" or a lone "\r";
// - a UTF-8 byte order mark at the very start of the file is not data;
// - a blank line is skipped; a line that is not JSON (or not UTF-8, or too
//   long to be a JS string) is left out, never replaced or removed;
// - the last line may lack its line end: if it is JSON it is an entry (a
//   hand-written file), else it is a write cut off by a crash ("torn").
import { JsonlLines } from "../../../wasm/oda_tasks.js";
import { parseJson } from "../../core/entry-text.js";
import { StoreError } from "../store.js";

/** A line longer than this cannot become a JS string: it is unreadable, not an error. */
const MAX_LINE_BYTES = 0x1fffffe8;

/** A line the core read as JSON that this process's `JSON.parse` refused: read again, never count it as unreadable. */
function readFailed(chatId: string, index: number, e: unknown): StoreError {
  const why = e instanceof Error ? e.message : String(e);
  return new StoreError(
    "store/read-failed",
    `oda-tasks: entry ${index} is JSON to the core, but JSON.parse refused it (${why}); read the log again`,
    chatId,
  );
}

/**
 * Reads JSONL bytes fed in chunks of any size by the core's rules, counting
 * the entries it sees and keeping those from index `keepFrom` on, as objects
 * (`entries`) and as their stored texts (`texts`).
 *
 * @example
 * const scan = new JsonlScanner({ offset: 0, count: 0 }, 0);
 * import { createReadStream } from "node:fs";
 * for await (const chunk of createReadStream("./chats/c.jsonl")) scan.push(chunk);
 * const { entries, texts, count } = scan.end();
 */
export class JsonlScanner {
  /** Entries with index >= `keepFrom`, in order. */
  readonly entries: unknown[] = [];
  /** The same entries' JSON texts, exactly as stored. */
  readonly texts: string[] = [];
  /** Entries seen so far (from index 0, counting those before the start point). */
  count: number;
  /** Absolute offset just past the last complete line, and the entries up to there. */
  checkpoint: { offset: number; count: number };
  /** Whether the bytes so far end inside a line: a writer must add "\n" first. */
  openLine = false;

  readonly #keepFrom: number;
  #lines: JsonlLines | undefined;

  /**
   * Starts at `from.offset`, which must be 0 or just past a line end, where
   * `from.count` entries lie before it.
   */
  /** `chatId`: the chat whose log this is, named by a `store/read-failed` refusal. */
  constructor(
    from: { offset: number; count: number },
    keepFrom: number,
    maxLineBytes = MAX_LINE_BYTES,
    readonly chatId = "",
  ) {
    this.count = from.count;
    this.checkpoint = { ...from };
    this.#keepFrom = keepFrom;
    this.#lines = new JsonlLines(from.offset, from.count, maxLineBytes);
  }

  push(chunk: Uint8Array): void {
    this.#live().push(chunk);
    this.#take();
  }

  /** Reads the last line (one without a line end) and returns the result. */
  end(): this {
    const lines = this.#live();
    lines.end();
    this.#take();
    lines.free();
    this.#lines = undefined;
    return this;
  }

  #live(): JsonlLines {
    if (this.#lines === undefined) throw new Error("oda-tasks: this JsonlScanner has ended");
    return this.#lines;
  }

  #take(): void {
    const lines = this.#live();
    for (const text of lines.texts()) {
      const index = this.count++;
      if (index < this.#keepFrom) continue;
      let entry: unknown;
      try {
        entry = parseJson(text);
      } catch (e) {
        throw readFailed(this.chatId, index, e);
      }
      this.entries.push(entry);
      this.texts.push(text);
    }
    this.checkpoint = { offset: lines.checkpointOffset, count: lines.checkpointCount };
    this.openLine = lines.openLine;
  }
}
