//! The bridge between external agents and the browser: `waymark-host mcp` (spawned by Claude
//! Code or another MCP client) connects over a Unix socket (a named pipe on Windows) only this
//! user can open to the host process Chrome started, which carries each tool call to the
//! service worker over native messaging and its answer back. Never TCP.
//!
//! * [`endpoint`]: the local endpoint per platform (a Unix socket, a Windows named pipe).
//! * [`registry`]: where sockets live, the per-install secret, finding the browser to use.
//! * [`wire`]: the socket's line-delimited JSON messages.
//! * [`survey`]: what the directory says: live, closed and switched-off browsers.
//! * [`server`]: the host side (in the process Chrome started).
//! * [`client`]: the MCP side.

pub mod client;
pub mod endpoint;
pub mod registry;
pub mod server;
pub mod survey;
pub mod wire;

pub use registry::BridgeError;
