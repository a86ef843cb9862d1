// TEMPORARY (wired at merge to mcpHandler)
import type { Store } from "../stores/store.js";
import type { FetchHandler } from "../serve/node-http.js";
export async function mcpEndpoint(_store: Store, _o: { suggestTask: boolean }): Promise<FetchHandler> {
  return async () => new Response("not yet", { status: 501 });
}
