// Where the .wasm's bytes go: code bytes per crate (from the function names
// that cargo's unstripped module still has; the shipped module has none) and
// the data segments. For the benchmark's size profile.
import { readFileSync } from "node:fs";

function leb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if ((b & 0x80) === 0) return [value, at];
  }
}

/** The crate a Rust symbol belongs to (legacy `_ZN` or v0 `_R` mangling), or a label. */
function crateOf(name) {
  const legacy = /^_ZN(\d+)/.exec(name);
  if (legacy) {
    const first = name.slice(3 + legacy[1].length, 3 + legacy[1].length + Number(legacy[1]));
    if (!first.startsWith("_$LT$")) return first;
    // `<&mut serde_json::de::Deserializer as serde::Deserializer>::fn`: the first crate path named
    return /([a-z_][a-z0-9_]*)\.\./.exec(first)?.[1] ?? "generic impls";
  }
  const v0 = /Cs[0-9A-Za-z]*_(\d+)/.exec(name);
  if (name.startsWith("_R") && v0) {
    const at = v0.index + v0[0].length;
    return name.slice(at, at + Number(v0[1]));
  }
  if (/wbindgen|__wbg|externref/.test(name)) return "wasm_bindgen";
  if (/^(memcpy|memset|memmove|memcmp|dlmalloc|malloc|free|realloc|__rust_)/.test(name)) return "allocator and mem*";
  return name === "" ? "(unnamed)" : "other";
}

/** `{ total, code, data, byCrate: [[crate, bytes]] }` of an unstripped module. */
export function wasmSizeProfile(path) {
  const bytes = readFileSync(path);
  let at = 8;
  const bodies = [];
  const names = new Map();
  let imports = 0;
  let data = 0;
  while (at < bytes.length) {
    const id = bytes[at];
    let size;
    [size, at] = leb(bytes, at + 1);
    const end = at + size;
    if (id === 2) {
      let count;
      let p;
      [count, p] = leb(bytes, at);
      for (let i = 0; i < count; i++) {
        let n;
        [n, p] = leb(bytes, p);
        p += n; // module
        [n, p] = leb(bytes, p);
        p += n; // field
        const kind = bytes[p++];
        if (kind === 0) {
          imports++;
          [, p] = leb(bytes, p);
        } else if (kind === 1) {
          p += 1;
          const flags = bytes[p++];
          [, p] = leb(bytes, p);
          if (flags & 1) [, p] = leb(bytes, p);
        } else if (kind === 2) {
          const flags = bytes[p++];
          [, p] = leb(bytes, p);
          if (flags & 1) [, p] = leb(bytes, p);
        } else p += 2;
      }
    } else if (id === 10) {
      let count;
      let p;
      [count, p] = leb(bytes, at);
      for (let i = 0; i < count; i++) {
        let n;
        const start = p;
        [n, p] = leb(bytes, p);
        bodies.push(p + n - start);
        p += n;
      }
    } else if (id === 11) {
      data += size;
    } else if (id === 0) {
      const [n, start] = leb(bytes, at);
      let p = start;
      const sectionName = bytes.toString("utf8", p, p + n);
      p += n;
      if (sectionName === "name") {
        while (p < end) {
          const sub = bytes[p];
          let len;
          [len, p] = leb(bytes, p + 1);
          const subEnd = p + len;
          if (sub === 1) {
            let count;
            let q;
            [count, q] = leb(bytes, p);
            for (let i = 0; i < count; i++) {
              let index;
              let nameLen;
              [index, q] = leb(bytes, q);
              [nameLen, q] = leb(bytes, q);
              names.set(index, bytes.toString("utf8", q, q + nameLen));
              q += nameLen;
            }
          }
          p = subEnd;
        }
      }
    }
    at = end;
  }
  const byCrate = new Map();
  let code = 0;
  bodies.forEach((size, i) => {
    code += size;
    const crate = crateOf(names.get(imports + i) ?? "");
    byCrate.set(crate, (byCrate.get(crate) ?? 0) + size);
  });
  const byModule = new Map();
  bodies.forEach((size, i) => {
    const module = moduleOf(names.get(imports + i) ?? "");
    byModule.set(module, (byModule.get(module) ?? 0) + size);
  });
  const sorted = (map) => [...map].sort((a, b) => b[1] - a[1]);
  return { total: bytes.length, code, data, functions: bodies.length, byCrate: sorted(byCrate), byModule: sorted(byModule) };
}

/** Code bytes by a finer bucket: the crate plus the module path's next segment (e.g. `core::fmt`). */
export function moduleOf(name) {
  const legacy = /^_ZN(\d+)/.exec(name);
  if (legacy) {
    const parts = [];
    let at = 3;
    while (parts.length < 2) {
      const m = /^(\d+)/.exec(name.slice(at));
      if (!m) break;
      const len = Number(m[1]);
      parts.push(name.slice(at + m[1].length, at + m[1].length + len));
      at += m[1].length + len;
    }
    if (parts[0]?.startsWith("_$LT$"))
      return `impl ${/([a-z_][a-z0-9_]*)\.\.([a-z_][a-z0-9_]*)/.exec(parts[0])?.slice(1).join("::") ?? "?"}`;
    return parts.join("::");
  }
  return crateOf(name);
}
