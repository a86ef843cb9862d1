// Reads waiting for a chat's lock in this process (the queue itself is
// stores/queue.ts): a read arriving meanwhile joins the waiting one.
import type { LogEntry } from "../../core/functions.js";

export interface Scan {
  entries: unknown[];
  /** The kept entries' JSON texts as stored. */
  texts: string[];
  count: number;
  /** Just past the last complete line, and the entries before it. */
  checkpoint: { offset: number; count: number };
  openLine: boolean;
  /** The offset the scan read up to: the file's size under the lock. */
  end: number;
}

export interface SharedScan {
  entries: LogEntry[];
  texts: string[];
  count: number;
  keepFrom: number;
  readers: number;
}

export interface ReadGroup {
  /** The `from` of every read in the group; fixed once the scan starts. */
  froms: number[];
  scan: Promise<SharedScan | null>;
}

/** Per chat file: the read that waits for its turn, for later reads to join. */
export const waitingReads = new Map<string, ReadGroup>();
