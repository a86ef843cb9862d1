// The module scripts/inline-wasm.mjs writes into dist/ after the build: the .wasm as base64.
declare const wasmBase64: string;
export default wasmBase64;
