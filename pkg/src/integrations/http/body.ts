// A POST's body: JSON only (a form post from another site cannot send it
// without a CORS preflight, which the handler never answers), read up to a
// bound whatever Content-Length claims, and one JSON object (or, for
// protocols that batch, any JSON value).
import { failure } from "./replies.js";

/** A body read: the object, or the answer that refuses it. */
export type BodyRead = { body: Record<string, unknown> } | { refused: Response };

/** Whether `type` is `application/json`, with parameters or not. */
function isJson(type: string | null): boolean {
  return type !== null && /^application\/json\s*(;|$)/i.test(type.trim());
}

/**
 * The request's JSON object body, at most `limit` bytes; an empty body is
 * `{}`. Refuses with 415 (not JSON), 413 (too large) or 400 (not one object).
 */
export async function readJsonBody(request: Request, limit: number): Promise<BodyRead> {
  const read = await readJsonValue(request, limit);
  if ("refused" in read) return read;
  const { value } = read;
  if (value === undefined) return { body: {} };
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { refused: failure(400, "http/bad-request", "the body must be a JSON object") };
  }
  return { body: value as Record<string, unknown> };
}

/**
 * The request's JSON body as any JSON value, at most `limit` bytes (whatever
 * Content-Length claims); `undefined` for an empty body. Refuses with 415
 * (not JSON), 413 (too large) or 400 (not UTF-8, not JSON).
 */
export async function readJsonValue(request: Request, limit: number): Promise<{ value: unknown } | { refused: Response }> {
  if (!isJson(request.headers.get("content-type"))) {
    return { refused: failure(415, "http/unsupported-media-type", "a POST needs Content-Type: application/json") };
  }
  const tooLarge = () => ({ refused: failure(413, "http/payload-too-large", `the body is larger than ${limit} bytes`) });
  const claimed = Number(request.headers.get("content-length") ?? "0");
  if (Number.isFinite(claimed) && claimed > limit) {
    await request.body?.cancel().catch(() => undefined);
    return tooLarge();
  }
  const bytes = await readBounded(request, limit);
  if (bytes === null) return tooLarge();
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { refused: failure(400, "http/bad-request", "the body is not UTF-8") };
  }
  if (text.trim() === "") return { value: undefined };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { refused: failure(400, "http/bad-request", "the body is not JSON") };
  }
}

/**
 * The request's body bytes, or `null` (the rest cancelled) once they pass
 * `limit`, whatever Content-Length claimed.
 *
 * @example
 * const bytes = await readBounded(new Request("https://app.example/", { method: "POST", body: "{}" }), 4096); // null past 4 KiB
 */
export async function readBounded(request: Request, limit: number): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        return null;
      }
      chunks.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
