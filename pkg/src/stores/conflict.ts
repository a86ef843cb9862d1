import { ConflictError } from "./store.js";

/**
 * Whether a store refused an append because its `expectedLength` no longer
 * holds. Also recognises a `store/conflict` error from a second copy of this
 * package (a store shipped by another bundle), where `instanceof` fails.
 *
 * @example
 * try { await store.append(id, [entry], log.length); } catch (e) { if (!isConflict(e)) throw e; }
 */
export function isConflict(error: unknown): boolean {
  return error instanceof ConflictError || (error instanceof Error && (error as { code?: unknown }).code === "store/conflict");
}
