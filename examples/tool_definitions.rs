//! Prints both tool definitions as one JSON text, for `scripts/build.mjs` to
//! write into the package: `cargo run --quiet --example tool_definitions`.

fn main() {
    println!("{}", oda_tasks::tool::definitions_json());
}
