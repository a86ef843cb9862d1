// The realm guard of the value channel (docs/architecture.md: no host or model code runs
// while Rust frames are on the stack). serde-wasm-bindgen builds an answer by
// assignment (`object[key] = value`, `array[i] = value`), so a setter that app
// code put on `Object.prototype` or `Array.prototype` would run inside the
// call. Object.prototype's own keys are recorded when the package loads; a
// call takes the value channel only while it still has exactly those keys and
// Array.prototype still has no index key (the only keys an array's assignment
// reaches; one sets Array.prototype.length, so that check is one read, where
// listing Array.prototype's 40 keys costs microseconds), else it answers
// through JSON text. A realm whose prototypes already held an accessor that is
// not a method's, or an index key, at load answers through text for good.

const ownKeys = Reflect.ownKeys;
const objectPrototype = Object.prototype;
const arrayPrototype = Array.prototype;
const objectKeys = ownKeys(objectPrototype);
const describe = Object.getOwnPropertyDescriptor;

/**
 * Nothing on `prototype` (own keys `keys`) that an answer's assignment could
 * run into: no index key, and no accessor under a string key but Object.prototype's
 * `__proto__` and a method's (Node's `--frozen-intrinsics` makes each method an
 * accessor whose getter gives the method, so that assignment can override it).
 */
function assignable(prototype: object, keys: (string | symbol)[]): boolean {
  return keys.every((key) => {
    if (typeof key === "symbol") return true; // an answer's keys are strings
    if (/^\d+$/.test(key)) return false;
    if (prototype === objectPrototype && key === "__proto__") return true;
    const d = describe(prototype, key);
    return d !== undefined && ("value" in d || (d.get !== undefined && typeof d.get.call(prototype) === "function"));
  });
}

const safeAtLoad = assignable(objectPrototype, objectKeys) && assignable(arrayPrototype, ownKeys(arrayPrototype));

// The glue makes each object and array with `new Object()` and `new Array()`, globals looked up per call.
const realm = globalThis;
const ObjectAtLoad = Object;
const ArrayAtLoad = Array;

/** The same keys in the same order. */
function sameKeys(now: (string | symbol)[], then: (string | symbol)[]): boolean {
  if (now.length !== then.length) return false;
  for (let i = 0; i < now.length; i++) if (now[i] !== then[i]) return false;
  return true;
}

/**
 * True while `Object.prototype` has exactly the own keys it had at load,
 * `Array.prototype` no index key, and `Object`, `Array` are the same, so
 * building an answer as a JS value runs no app code.
 *
 * @example
 * if (!realmIntact()) console.warn("Object.prototype was changed: answers come as JSON text, parsed");
 */
export function realmIntact(): boolean {
  return (
    safeAtLoad &&
    arrayPrototype.length === 0 &&
    realm.Object === ObjectAtLoad &&
    realm.Array === ArrayAtLoad &&
    sameKeys(ownKeys(objectPrototype), objectKeys)
  );
}
