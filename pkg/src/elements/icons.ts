// The elements' icons as SVG path data on a 16-unit grid: [path, filled].
// Shapes differ by kind, so no state or change is told by colour alone.

/**
 * The names of the icons.
 *
 * @example
 * const name: IconName = "completed";
 */
export type IconName =
  | "pending"
  | "in_progress"
  | "completed"
  | "added"
  | "removed"
  | "changed"
  | "moved"
  | "running"
  | "finished"
  | "none"
  | "card"
  | "suggestion"
  | "started"
  | "drafted"
  | "dismissed"
  | "restored"
  | "up"
  | "down";

const ring = "M8 2a6 6 0 1 1 0 12A6 6 0 0 1 8 2z";

/**
 * Path data per icon.
 *
 * @example
 * ICONS.added; // [["M8 3v10M3 8h10", false]]
 */
export const ICONS: Record<IconName, readonly (readonly [string, boolean])[]> = {
  pending: [[ring, false]],
  in_progress: [
    [ring, false],
    ["M8 2a6 6 0 0 1 0 12z", true],
  ],
  completed: [["M8 1a7 7 0 1 1 0 14A7 7 0 0 1 8 1zm3.4 4.2-4.5 4.7-2.3-2.3-1 1 3.3 3.3 5.5-5.7z", true]],
  added: [["M8 3v10M3 8h10", false]],
  removed: [["M3 8h10", false]],
  changed: [["M2 8h10M9 4.5 12.5 8 9 11.5", false]],
  moved: [["M5 13V3M2 6l3-3 3 3M11 3v10M8 10l3 3 3-3", false]],
  running: [["M5 3l8 5-8 5z", true]],
  finished: [["M3 2h1.5v12H3zM4.5 2.5h8l-2 3 2 3h-8z", true]],
  none: [["M8 2a6 6 0 1 1 0 12A6 6 0 0 1 8 2z", false]],
  card: [["M3 2.5h10v11H3zM5.5 6h5M5.5 8.5h5M5.5 11h3", false]],
  suggestion: [["M8 1.5a4.5 4.5 0 0 0-2.5 8.2V12h5V9.7A4.5 4.5 0 0 0 8 1.5zM6 14h4", false]],
  started: [["M3 8h9M8.5 4 12.5 8l-4 4", false]],
  drafted: [["M3 13l1-3.5 7-7 2.5 2.5-7 7zM9.5 4l2.5 2.5", false]],
  dismissed: [["M4 4l8 8M12 4l-8 8", false]],
  restored: [["M3.5 8a4.5 4.5 0 1 0 1.3-3.2M4.5 2v3h3", false]],
  up: [["M8 13V3M3.5 7.5 8 3l4.5 4.5", false]],
  down: [["M8 3v10M3.5 8.5 8 13l4.5-4.5", false]],
};
