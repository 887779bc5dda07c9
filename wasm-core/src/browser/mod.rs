//! Browser adapters (wasm only): thin glue between `chrome.*`/DOM and the core.
