// One HTTP request with the headers exactly as given, Host included (fetch
// sets its own Host): what a browser sends after its name was rebound.
import { request } from "node:http";

/**
 * Sends `method path` to `base` (an http:// URL) with `headers` and `body`;
 * resolves to `{ status, headers, body }`.
 *
 * @example
 * const { status } = await rawRequest("http://127.0.0.1:8765", { path: "/health", headers: { host: "evil.example" } });
 */
export function rawRequest(base, { method = "GET", path = "/", headers = {}, body } = {}) {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers, setHost: !("host" in headers) }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
