//! The harness of the one end-to-end test binary (`tests/tests/e2e/`): every test is an [`E2e`]
//! trial that names what it needs, and the harness (not each test) checks it before the body
//! runs.
//!
//! Why: with one binary the shared code is compiled and linked once; with the prologue here a
//! test cannot forget it, and a skip is told apart from a pass. A trial whose needs are missing
//! **fails** naming the command that provides them (see [`crate::e2e`]); a trial the run asked
//! to skip (`WAYMARK_SKIP_BROWSER`, `WAYMARK_SKIP_CORPUS`, `WAYMARK_SKIP_EVAL_TOOLS`) is reported
//! *ignored* by libtest-mimic, and the reason is printed once per variable before the run.
//! Benchmarks are trials too, ignored unless asked for (`-- --ignored <name>`, as
//! `cargo xtask bench` does).

use crate::e2e::{self, Needs};
use crate::eval::SKIP_EVAL_TOOLS;
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

/// Data a trial needs besides the build, which a run may ask to leave out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Data {
    /// The shared DOM corpus (`WAYMARK_DOM_CORPUS`).
    Corpus,
    /// The evaluation's tools (`cargo xtask setup --eval`: MiniWoB, llama.cpp, the library zoo).
    EvalTools,
}

/// A skip the run asked for: the variable set and what the trial needs that it leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skip {
    /// The environment variable that asks for it.
    pub var: &'static str,
    /// What the skipped trials need.
    pub what: &'static str,
}

/// A test's body and what it needs of the machine and the build.
#[derive(Clone, Copy)]
enum Body {
    /// Needs nothing outside the process.
    Plain(fn()),
    /// Launches Chromium itself, without Waymark.
    Chromium(fn()),
    /// Needs Chromium and the build; handed the checked build's unpacked extension.
    Built(Needs, fn(&Path)),
}

/// One end-to-end test: its name, its needs and its body.
pub struct E2e {
    name: String,
    data: Option<Data>,
    on_request: bool,
    body: Body,
}

impl E2e {
    /// A test that needs nothing outside the process.
    pub fn plain(name: &str, body: fn()) -> Self {
        Self::new(name, Body::Plain(body))
    }

    /// A test that launches Chromium itself, without Waymark.
    pub fn chromium(name: &str, body: fn()) -> Self {
        Self::new(name, Body::Chromium(body))
    }

    /// A test on the built extension and host (any flavour); `body` gets the extension.
    pub fn extension(name: &str, body: fn(&Path)) -> Self {
        Self::new(name, Body::Built(Needs::Extension, body))
    }

    /// A test on a build with the test hooks (it drives the worker's tab code directly).
    pub fn test_hooks(name: &str, body: fn(&Path)) -> Self {
        Self::new(name, Body::Built(Needs::TestHooks, body))
    }

    fn new(name: &str, body: Body) -> Self {
        Self { name: name.to_owned(), data: None, on_request: false, body }
    }

    /// The trial also needs `data`.
    pub fn with_data(self, data: Data) -> Self {
        Self { data: Some(data), ..self }
    }

    /// A benchmark, a measurement or a helper another test runs: only when asked for
    /// (`-- --ignored <name>`).
    pub fn only_when_asked(self) -> Self {
        Self { on_request: true, ..self }
    }

    /// Prefixes the name with its module (`teach::…`), so `-- teach` runs a former file.
    pub fn in_module(self, module: &str) -> Self {
        Self { name: format!("{module}::{}", self.name), ..self }
    }

    /// The trial's full name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The skip the environment asks for, if any (`asks` tells whether a variable is set).
    pub fn skip(&self, asks: impl Fn(&str) -> bool) -> Option<Skip> {
        let browser = Skip { var: e2e::SKIP_BROWSER, what: "need Chromium" };
        let data = self.data.map(|d| match d {
            Data::Corpus => Skip { var: e2e::SKIP_CORPUS, what: "need the shared DOM corpus" },
            Data::EvalTools => {
                Skip { var: SKIP_EVAL_TOOLS, what: "need the evaluation's tools (setup --eval)" }
            }
        });
        let needs_browser = !matches!(self.body, Body::Plain(_));
        needs_browser.then_some(browser).into_iter().chain(data).find(|s| asks(s.var))
    }

    /// The libtest-mimic trial: ignored when the run asks to skip it or it is a benchmark.
    pub fn into_trial(self) -> Trial {
        let skip = self.skip(e2e::skip_requested);
        let ignored = skip.is_some() || self.on_request;
        let name = self.name.clone();
        Trial::ignorable_test(name, move || {
            // Run all the same (`--ignored`): a skip still wins, and says why.
            if let Some(s) = self.skip(e2e::skip_requested) {
                return Ok(Completion::ignored_with(format!("{} is set", s.var)));
            }
            self.run(checked_build)
        })
        .with_ignored_flag(ignored)
    }

    /// Runs the body once `check` has given the build it needs.
    fn run(
        self,
        check: impl FnOnce(Needs) -> Result<PathBuf, String>,
    ) -> Result<Completion, Failed> {
        match self.body {
            Body::Plain(body) | Body::Chromium(body) => body(),
            Body::Built(needs, body) => body(&check(needs)?),
        }
        Ok(Completion::Completed)
    }
}

/// The build for `needs`, checked once per run: the unpacked extension, or why it cannot be
/// used and the command that fixes it.
fn checked_build(needs: Needs) -> Result<PathBuf, String> {
    static EXTENSION: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    static TEST_HOOKS: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let cell = match needs {
        Needs::Extension => &EXTENSION,
        Needs::TestHooks => &TEST_HOOKS,
    };
    cell.get_or_init(|| {
        let (dir, sources) = e2e::extension_under_test();
        e2e::check_build_from(&dir, &crate::paths::host_binary(), needs, sources).map_err(|e| {
            format!(
                "{e:#}\n\nRun `{}` and then this test again, or `cargo xtask test` for \
                 everything; set {}=1 to skip the end-to-end tests (they are reported ignored).",
                e2e::BUILD_COMMAND,
                e2e::SKIP_BROWSER
            )
        })
    })
    .clone()
}

/// Runs `trials` under libtest's command line (`--exact`, `--list`, `--ignored`,
/// `--test-threads`, filters; `RUST_TEST_THREADS` as libtest reads it) and returns the exit code.
pub fn main(trials: Vec<E2e>) -> ExitCode {
    let twice = duplicates(&trials);
    if !twice.is_empty() {
        eprintln!("end-to-end trials registered twice (a name must pick one test): {twice:?}");
        return ExitCode::FAILURE;
    }
    // libtest takes any number of name filters, libtest-mimic one: the others are applied here.
    let (args, filters) = split_filters(std::env::args());
    let mut args = Arguments::from_iter(args);
    let trials: Vec<E2e> = trials
        .into_iter()
        .filter(|t| filters.len() < 2 || filters.iter().any(|f| matches(t.name(), f, args.exact)))
        .collect();
    if filters.len() == 1 {
        args.filter = filters.into_iter().next();
    }
    if args.test_threads.is_none() {
        args.test_threads =
            std::env::var("RUST_TEST_THREADS").ok().and_then(|n| n.parse().ok()).filter(|n| *n > 0);
    }
    if !args.list {
        for (skip, count) in skips(&trials, e2e::skip_requested) {
            eprintln!(
                "{} is set: {count} end-to-end test(s) that {} are reported ignored",
                skip.var, skip.what
            );
        }
    }
    let trials = trials.into_iter().map(E2e::into_trial).collect();
    libtest_mimic::run(&args, trials).exit_code()
}

/// The command line without its name filters, and those filters (libtest's positional
/// arguments: the values of the options that take one are not filters).
fn split_filters(args: impl IntoIterator<Item = String>) -> (Vec<String>, Vec<String>) {
    const TAKE_A_VALUE: &[&str] =
        &["--test-threads", "--logfile", "--skip", "--color", "--format", "-Z"];
    let (mut rest, mut filters) = (Vec::new(), Vec::new());
    let mut args = args.into_iter();
    rest.extend(args.next());
    while let Some(arg) = args.next() {
        if TAKE_A_VALUE.contains(&arg.as_str()) {
            rest.push(arg);
            rest.extend(args.next());
        } else if arg.starts_with('-') {
            rest.push(arg);
        } else {
            filters.push(arg);
        }
    }
    (rest, filters)
}

/// Whether a trial's `name` is picked by `filter`, as libtest matches it.
fn matches(name: &str, filter: &str, exact: bool) -> bool {
    if exact { name == filter } else { name.contains(filter) }
}

/// The names that more than one of `trials` carries.
fn duplicates(trials: &[E2e]) -> Vec<&str> {
    let mut names: Vec<&str> = trials.iter().map(E2e::name).collect();
    names.sort_unstable();
    let mut twice: Vec<&str> = names.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0]).collect();
    twice.dedup();
    twice
}

/// Each skip the environment asks for, with how many of `trials` it leaves out.
fn skips(trials: &[E2e], asks: impl Fn(&str) -> bool) -> Vec<(Skip, usize)> {
    let mut out: Vec<(Skip, usize)> = Vec::new();
    for skip in trials.iter().filter_map(|t| t.skip(&asks)) {
        match out.iter_mut().find(|(s, _)| *s == skip) {
            Some((_, n)) => *n += 1,
            None => out.push((skip, 1)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nothing() {}
    fn built(_: &Path) {}

    #[test]
    fn a_skip_applies_only_to_the_trials_that_need_what_it_leaves_out() {
        let browser = |v: &str| v == e2e::SKIP_BROWSER;
        let corpus = |v: &str| v == e2e::SKIP_CORPUS;
        assert_eq!(E2e::plain("p", nothing).skip(browser), None);
        assert_eq!(
            E2e::chromium("c", nothing).skip(browser).map(|s| s.var),
            Some(e2e::SKIP_BROWSER)
        );
        assert_eq!(E2e::test_hooks("t", built).skip(corpus), None);
        let on_corpus = E2e::test_hooks("t", built).with_data(Data::Corpus);
        assert_eq!(on_corpus.skip(corpus).map(|s| s.var), Some(e2e::SKIP_CORPUS));
        assert_eq!(on_corpus.skip(|_| false), None);
        let trials = [E2e::extension("a", built), E2e::chromium("b", nothing), on_corpus];
        let counted = skips(&trials, |v| v == e2e::SKIP_BROWSER);
        assert_eq!(counted.len(), 1);
        assert_eq!(counted[0].1, 3);
    }

    #[test]
    fn every_name_filter_is_kept_and_option_values_are_not_filters() {
        let line = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
        let (rest, filters) =
            split_filters(line("bin hostile --test-threads 1 --skip twins network_guard --exact"));
        assert_eq!(rest, line("bin --test-threads 1 --skip twins --exact"));
        assert_eq!(filters, line("hostile network_guard"));
        assert!(matches("hostile::a", "hostile", false));
        assert!(!matches("hostile::a", "hostile", true));
    }

    #[test]
    fn a_missing_build_fails_the_trial_with_the_reason() {
        let trial = E2e::extension("x", built);
        let Err(failed) = trial.run(|_| Err("not built: run it".into())) else {
            panic!("a trial without its build must fail")
        };
        assert_eq!(failed.message(), Some("not built: run it"));
        let ok = E2e::test_hooks("y", built).run(|n| {
            assert_eq!(n, Needs::TestHooks);
            Ok(PathBuf::from("/ext"))
        });
        assert!(matches!(ok, Ok(Completion::Completed)));
    }

    #[test]
    fn a_name_registered_twice_is_found() {
        let trials = [E2e::plain("a", nothing), E2e::plain("b", nothing), E2e::plain("a", nothing)];
        assert_eq!(duplicates(&trials), ["a"]);
        assert!(duplicates(&trials[..2]).is_empty());
    }

    #[test]
    fn a_skipped_trial_and_a_benchmark_are_ignored_and_named_by_module() {
        let bench = E2e::plain("b", nothing).only_when_asked().in_module("agent_bench");
        assert_eq!(bench.name(), "agent_bench::b");
        assert!(bench.into_trial().has_ignored_flag());
        assert!(!E2e::plain("p", nothing).into_trial().has_ignored_flag());
    }
}
