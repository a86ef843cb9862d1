// A transaction that aborts half-way, for IndexedDbStore in Node
// (fake-indexeddb) and in Chromium (the function's source, evaluated in the page).

/**
 * Makes the third put of `IDBObjectStore` go through, then aborts its
 * transaction (as on a quota error or a closing tab). `again()` counts from
 * zero once more; `restore()` puts the real put back.
 */
export function abortThirdPut(IDBObjectStore) {
  const put = IDBObjectStore.prototype.put;
  let puts = 0;
  IDBObjectStore.prototype.put = function (...args) {
    const request = put.apply(this, args);
    if (++puts === 3) this.transaction.abort();
    return request;
  };
  return {
    again: () => {
      puts = 0;
    },
    restore: () => {
      IDBObjectStore.prototype.put = put;
    },
  };
}
