//! End-to-end test harness for Waymark: a real Debian Chromium with the real unpacked extension,
//! a throw-away profile, a fixture site and a scripted LLM server, all driven from plain
//! synchronous test functions, the trials of one test binary (`tests/tests/e2e/`) under
//! `cargo test`.
//!
//! # Pieces
//!
//! - [`chromium`]: [`chromium::Browser::launch`] starts Chromium (`/usr/bin/chromium`, or
//!   `WAYMARK_CHROMIUM`) with `--remote-debugging-pipe`, an optional unpacked extension and extra
//!   environment variables (inherited by the native host); [`chromium::Page`] is a session on any
//!   target — tab, extension page or the extension's service worker — with `eval`, `wait_for`,
//!   `navigate`, `screenshot` and captured console output.
//! - [`cdp`]: the Chrome DevTools Protocol transport underneath (NUL-delimited JSON on fds 3/4).
//! - [`llm_server`]: [`llm_server::ScriptedLlm`], an OpenAI chat-completions (and Anthropic
//!   Messages) server on a free 127.0.0.1 port whose per-test closure decides every reply
//!   (text, tool calls, error statuses, garbage, delays, cut streams) and which records every
//!   request.
//! - [`fixture_server`]: [`fixture_server::FixtureServer`], a static site on a free 127.0.0.1 port
//!   with per-path response headers (e.g. a strict CSP on one page) and a request log.
//! - [`e2e`]: whether an end-to-end test can run (a missing build fails it, naming the command;
//!   `WAYMARK_SKIP_BROWSER=1` skips it).
//! - [`trial`]: the e2e binary's harness: each test a named trial that says what it needs; the
//!   harness checks that once for all, and reports a skip the run asked for as ignored.
//! - [`paths`]: the workspace layout and [`paths::TempProfile`] (fresh `--user-data-dir` with its
//!   `NativeMessagingHosts/` directory for the host manifest).
//!
//! ```no_run
//! use std::time::Duration;
//! use waymark_tests::{chromium::{Browser, LaunchOptions}, fixture_server::FixtureServer};
//! use waymark_tests::llm_server::{ScriptedLlm, ScriptedReply};
//! use waymark_tests::paths::{TempProfile, extension_dir, fixtures_dir};
//!
//! let llm = ScriptedLlm::start(|_req| ScriptedReply::text("Done.")).expect("LLM");
//! let site = FixtureServer::start(fixtures_dir()).expect("site");
//! let profile = TempProfile::new().expect("profile"); // declared before the browser: dropped after
//! let browser = Browser::launch(
//!     LaunchOptions::new(profile.path())
//!         .extension(extension_dir())
//!         .env("WAYMARK_LLM_BASE_URL", llm.base_url()),
//! )
//! .expect("chromium");
//! let worker = browser.wait_for_extension_worker(Duration::from_secs(30)).expect("worker");
//! let sw = browser.attach(&worker.target_id).expect("attach worker");
//! let tab = browser.new_page(&site.url("/form.html")).expect("tab");
//! tab.wait_for("document.readyState === 'complete'", Duration::from_secs(30)).expect("loaded");
//! # let _ = sw;
//! ```
//!
//! # Why raw CDP over `--remote-debugging-pipe` (and not playwright-core)
//!
//! Both work with Debian Chromium 156 and MV3 extensions here; we chose raw CDP because:
//!
//! - **No Node at test time.** The tests are `cargo test` and nothing else: no `node_modules`,
//!   no npm install step in CI, no second language and toolchain to keep in step with the browser.
//!   The transport is serde_json plus a reader thread (a few hundred lines in [`cdp`]).
//! - **Nothing to download.** The `playwright` package fetches its own browser builds (not
//!   possible here); `playwright-core` must be pointed at the system Chromium and told to drop its
//!   `--disable-extensions` default. With raw CDP we pass exactly the flags we choose to the
//!   distribution's browser, and there is no npm package whose version must track it.
//! - **Direct access to the extension's service worker.** The worker is an ordinary CDP target
//!   (`type: "service_worker"`, `chrome-extension://ID/…`): `Target.attachToTarget {flatten}` and
//!   `Runtime.evaluate` run code in it, and `Target.closeTarget` stops it for fault tests, with no
//!   framework abstraction in between that hides or lags behind MV3 worker lifecycles.
//! - **One language.** Tests, harness, host and core are Rust; assertions can use the wire types
//!   of `waymark-core` directly, and a failing test is debugged with one set of tools.
//! - **A pipe instead of a TCP port.** `--remote-debugging-pipe` gives the debugging connection
//!   on inherited fds 3/4: no port to pick (no races between parallel tests), nothing listening
//!   that another local process could attach to, and the connection dies with the browser, so a
//!   crash shows up as an immediate "pipe closed" error rather than a hang.
//!
//! The costs — we implement waiting and polling ourselves, and CDP is a lower-level API — are
//! small for a harness whose tests mostly evaluate JavaScript and poll conditions.
//!
//! # Reliability rules
//!
//! Every wait has a generous bound (10–30 s) that is only a failure bound, never a timing
//! assertion: tests must pass on a busy 2-core machine. Failures quote the browser log tail
//! (`<profile>/chromium.log`), the condition waited for and the target's recent console output.
//! Set `WAYMARK_KEEP_PROFILE=1` to keep a failing test's profile (and log) for inspection.

pub mod cdp;
pub mod chromium;
pub mod e2e;
pub mod eval;
pub mod fixture_server;
pub mod libzoo;
pub mod llm_server;
pub mod obedient;
pub mod paths;
mod serve;
pub mod trial;
