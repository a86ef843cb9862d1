// A `.wasm` imported as a module, as workerd and wrangler (and other edge runtimes) load it: a compiled module.
declare module "*.wasm" {
  const wasmModule: WebAssembly.Module;
  export default wasmModule;
}
