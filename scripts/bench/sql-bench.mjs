// What the SQL stores' benches (bench-postgres, bench-sqlite) share: the
// session entry their chats start with, and the median of their samples.

/** The session entry of bench chat `chatId`. */
export const session = (chatId) => ({
  type: "session",
  chatId,
  workspace: "/w",
  scheduledTaskFolder: false,
  agent: "top-level",
  settings: { preset: "coder", model: "m", permission: "auto" },
});

/** The median of the numbers `xs` (the mean of the middle two for an even count). */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
