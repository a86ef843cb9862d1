// JSONL, the on-disk form of a log: one entry per line.

/** A line that was not JSON; it is left out of `entries`. */
export interface UnreadableLine {
  /** 1-based line number in the file. */
  line: number;
  error: string;
}

export interface ParsedJsonl<E> {
  entries: E[];
  /** Lines that are not JSON, with why; they are kept in the file, not in `entries`. */
  unreadable: UnreadableLine[];
  /** The text after the last newline: a line whose write was cut off. */
  torn: string | null;
}

/**
 * Parses a JSONL text. Every entry was written as one line ending in "\n",
 * so text after the last newline is a write that was cut off (a crash
 * mid-append): it is reported as `torn`, never taken as an entry.
 */
export function parseJsonl<E = unknown>(text: string): ParsedJsonl<E> {
  const end = text.lastIndexOf("\n") + 1;
  const entries: E[] = [];
  const unreadable: UnreadableLine[] = [];
  const lines = text.slice(0, end).split("\n");
  lines.pop(); // the empty string after the final newline
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      entries.push(JSON.parse(line) as E);
    } catch (e) {
      unreadable.push({ line: i + 1, error: (e as Error).message });
    }
  });
  const rest = text.slice(end);
  return {
    entries,
    unreadable,
    torn: rest.trim() === "" ? null : rest,
  };
}
