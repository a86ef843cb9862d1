// Appends from other processes racing a delete, for the SQL stores: child
// processes (children/sql-delete-child.mjs) append to one chat while this
// process deletes it and makes it again, round after round, then deletes it
// for good while they still append. What must hold: every chat read is whole
// (its own session first, each append's pair together, a conditional append
// where it expected), nothing of a deleted chat comes back, and the children
// saw their appends refused as store/missing-chat (or a conflict) only.
import assert from "node:assert/strict";
import { setTimeout as pause } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { spawnChild } from "./spawn-child.mjs";

export const DELETE_CHILD = fileURLToPath(new URL("../children/sql-delete-child.mjs", import.meta.url));

/** Asserts that `log` is one incarnation of the chat, whole: made in `round`, then pairs of appends. */
export function assertWhole(log, round, what) {
  assert.deepEqual(log[0], { type: "session", round }, `${what}: the chat's own first entry, nothing of an older one`);
  for (let k = 1; k < log.length; k += 2) {
    const [a, b] = [log[k], log[k + 1]];
    assert.equal(a?.type, "a", `${what}: entry ${k} starts an append`);
    assert.deepEqual(b, { type: "b", pid: a.pid, loop: a.loop, k: a.k }, `${what}: an append's entries stay together`);
    if (a.conditional) assert.equal(a.at, k, `${what}: a conditional append landed where it expected`);
  }
}

/**
 * Runs `processes` children (`args(ms)`: their argv after the script, for `ms`
 * of appending) against chat `chatId` of `store`, deleting and making it again
 * every few ms for `roundsMs`, then deleting it while the children append on.
 * `orphans()` counts the entries stored without their chat's row. Resolves to
 * the children's counts, summed.
 */
export async function raceDeletes({ store, chatId, processes, args, roundsMs = 1200, orphans }) {
  await store.create(chatId, [{ type: "session", round: 0 }]);
  const childMs = roundsMs + 600;
  const children = Array.from({ length: processes }, () => spawnChild(DELETE_CHILD, args(childMs)));
  try {
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.proc.stdin.end("go\n");
    let round = 0;
    let deleted = 0;
    const until = Date.now() + roundsMs;
    while (Date.now() < until) {
      await pause(5 + Math.random() * 20);
      const log = await store.read(chatId);
      assertWhole(log, round, `round ${round}`);
      if (await store.delete(chatId)) deleted++;
      assert.equal(await store.read(chatId), null, `round ${round}: gone once deleted`);
      assert.equal(await orphans(), 0, `round ${round}: no entry without its chat`);
      await pause(Math.random() * 5);
      assert.equal(await store.create(chatId, [{ type: "session", round: ++round }]), true, `round ${round}: made again`);
    }
    // The last delete, while the children still append: nothing comes back.
    assert.equal(await store.delete(chatId), true);
    const results = await Promise.all(children.map((c) => c.done));
    const counts = { landed: 0, conflicts: 0, missing: 0, errors: [] };
    for (const [r] of results) {
      counts.landed += r.landed;
      counts.conflicts += r.conflicts;
      counts.missing += r.missing;
      counts.errors.push(...r.errors);
    }
    assert.deepEqual(counts.errors, [], "every append landed or was refused as store/missing-chat or a conflict");
    assert.equal(await store.read(chatId), null, "no append after the last delete brought the chat back");
    assert.equal(await orphans(), 0, "no entry without its chat");
    assert.equal(deleted, round, "each round's chat was there to delete");
    assert.ok(round >= 3, `rounds: ${round}`);
    assert.ok(counts.landed > 0 && counts.missing > 0, `the children raced the deletes: ${JSON.stringify(counts)}`);
    return { ...counts, rounds: round };
  } finally {
    for (const c of children) c.proc.kill();
  }
}
