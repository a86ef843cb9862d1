// `serve`'s log: one JSON object a line on stderr (`time`, `level`, `msg`, then
// the line's fields), at or above the level `--log-level` sets. Every line is
// made of fixed words and bounded fields: no token, cookie, tool argument or
// chat content, no chat id, no error's message (which can name a chat or a file).

/** The levels, lowest first; `silent` writes nothing. */
export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;

/** A level a line is written at. */
export type LogLevel = Exclude<(typeof LOG_LEVELS)[number], "silent">;

/** What a line may carry beside its message. */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/**
 * Writes JSON lines at or above a level.
 *
 * @example
 * const log: Logger = jsonLogger("info");
 * log.write("info", "started", { url: "http://127.0.0.1:8765" });
 */
export interface Logger {
  /** Whether a line of `level` is written (work for a line that would not be is skipped). */
  enabled(level: LogLevel): boolean;
  write(level: LogLevel, msg: string, fields?: LogFields): void;
}

/**
 * The logger of `--log-level level`, writing each line with `out` (stderr by default).
 *
 * @example
 * jsonLogger("warn").write("info", "not written");
 */
export function jsonLogger(level: (typeof LOG_LEVELS)[number], out: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const floor = LOG_LEVELS.indexOf(level);
  const enabled = (at: LogLevel) => LOG_LEVELS.indexOf(at) >= floor;
  return {
    enabled,
    write(at, msg, fields = {}) {
      if (!enabled(at)) return;
      const line: Record<string, unknown> = { time: new Date().toISOString(), level: at, msg };
      for (const [key, value] of Object.entries(fields)) if (value !== undefined) line[key] = value;
      out(`${JSON.stringify(line)}\n`);
    },
  };
}
