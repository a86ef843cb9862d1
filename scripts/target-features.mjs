// The `target_features` custom section of a .wasm, edited before wasm-bindgen
// reads it: wasm-bindgen turns out-pointer returns into multi-value returns
// when the module declares `multivalue`, and V8 before 12 then compiles a
// TurboFan JS-to-wasm wrapper for each such export signature on every
// `new WebAssembly.Module` (about 2 ms of a Node 20 cold start, docs/performance.md).

/**
 * The module's bytes with `feature` no longer declared in its `target_features`
 * section; everything else is copied byte for byte.
 *
 * @example
 * writeFileSync(out, withoutFeature(readFileSync(input), "multivalue"));
 */
export function withoutFeature(bytes, feature) {
  const parts = [bytes.subarray(0, 8)];
  let found = false;
  for (let at = 8; at < bytes.length; ) {
    const id = bytes[at];
    const [size, body] = leb(bytes, at + 1);
    const end = body + size;
    const [nameLength, nameAt] = leb(bytes, body);
    const name = id === 0 ? bytes.subarray(nameAt, nameAt + nameLength).toString("utf8") : "";
    if (name !== "target_features") {
      parts.push(bytes.subarray(at, end));
      at = end;
      continue;
    }
    found = true;
    let p = nameAt + nameLength;
    const [count, first] = leb(bytes, p);
    p = first;
    const kept = [];
    for (let i = 0; i < count; i++) {
      const [length, text] = leb(bytes, p + 1);
      if (bytes.subarray(text, text + length).toString("utf8") !== feature) kept.push(bytes.subarray(p, text + length));
      p = text + length;
    }
    const section = Buffer.concat([uleb(nameLength), bytes.subarray(nameAt, nameAt + nameLength), uleb(kept.length), ...kept]);
    parts.push(Buffer.from([0]), uleb(section.length), section);
    at = end;
  }
  if (!found) throw new Error("target-features: the module has no target_features section (rustc writes one; was it stripped?)");
  return Buffer.concat(parts);
}

/** An unsigned LEB128 number at `at`, and where what follows it starts. */
function leb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++];
    if (byte === undefined) throw new Error("target-features: the module ends inside a number");
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) return [value, at];
  }
}

/** `n` as unsigned LEB128. */
function uleb(n) {
  const out = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return Buffer.from(out);
}
