//! Task success you can measure: `cargo xtask eval` runs suites of tasks through the real
//! extension and host in headless Chromium against any endpoint the host can call, and
//! reports per-task success (from each task's own check), steps, model calls, tokens, cost
//! and wall time, with the success rate's spread over runs.
//!
//! - [`task`]: tasks, budgets and checks; [`sites`], [`miniwob`] and [`widgets`]: the suites.
//! - [`stack`]: Chromium + extension + host, driven through the side panel's own port.
//! - [`run`]: one task in a fresh tab under its budgets; [`report`]: markdown and JSON.
//! - [`llama`]: the real llama.cpp server CI evaluates against.
//! - [`oracle`] and [`seen`]: scripted navigators that choose from the observation the model
//!   is sent, by name — they prove the harness and the observation end to end in CI.

pub mod libs;
pub mod llama;
pub mod miniwob;
pub mod oracle;
pub mod report;
pub mod run;
pub mod seen;
pub mod sites;
pub mod stack;
pub mod task;
pub mod widgets;

use crate::fixture_server::FixtureServer;
use crate::llm_server::ScriptedLlm;
use anyhow::{Context, Result, bail};
use oracle::OracleSlot;
use report::{Report, Settings, TaskResult};
use stack::{Endpoint, HostView, Stack, StackOptions};
use std::path::PathBuf;
use task::{Budget, EvalTask, SuiteName};

/// `WAYMARK_SKIP_EVAL_TOOLS=1`: skip the end-to-end tests that need the
/// evaluation's Python tools (MiniWoB's pages, the llama.cpp server), for machines without
/// them; `cargo xtask setup --eval` installs them and `cargo xtask test` never skips.
pub const SKIP_EVAL_TOOLS: &str = "WAYMARK_SKIP_EVAL_TOOLS";

/// Which model navigates.
#[derive(Debug, Clone)]
pub enum Model {
    /// The scripted oracle navigators (only tasks that have one run).
    Oracle,
    /// The endpoint(s) the user's environment and host config name.
    Configured,
    /// An OpenAI-compatible server on this machine (the llama.cpp server of CI).
    Local {
        /// `http://127.0.0.1:PORT/v1`.
        base_url: String,
        /// Model name.
        model: String,
    },
}

/// What to evaluate, and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// Suites, in order.
    pub suites: Vec<SuiteName>,
    /// Only these task ids (MiniWoB: any page name, or `all`); `None` = the suite's tasks.
    pub tasks: Option<Vec<String>>,
    /// Runs per task.
    pub runs: u32,
    /// Step and time budget per task.
    pub budget: Budget,
    /// Who navigates.
    pub model: Model,
    /// `(role, model)` overrides for the host.
    pub role_models: Vec<(waymark_protocol::LlmRole, String)>,
    /// The unpacked extension.
    pub extension: PathBuf,
    /// The host binary.
    pub host: PathBuf,
}

/// Whether the `--tasks` entry `id` names `task` of `suite`: `suite/task`, or the bare id.
fn names(id: &str, suite: SuiteName, task: &str) -> bool {
    match id.split_once('/') {
        Some((s, t)) => s == suite.as_str() && t == task,
        None => id == task,
    }
}

/// The tasks of `suite` that `opts` selects.
pub fn select(suite: SuiteName, opts: &Options) -> Result<Vec<EvalTask>> {
    let oracle_only = matches!(opts.model, Model::Oracle);
    let picked = |candidates: Vec<String>| -> Vec<String> {
        match &opts.tasks {
            None => candidates,
            Some(ids) => {
                candidates.into_iter().filter(|c| ids.iter().any(|i| names(i, suite, c))).collect()
            }
        }
    };
    let tasks: Vec<EvalTask> = match suite {
        SuiteName::Sites | SuiteName::Widgets | SuiteName::Libs => {
            let all = match suite {
                SuiteName::Sites => sites::tasks(),
                SuiteName::Widgets => widgets::tasks(),
                _ => libs::tasks(),
            };
            let keep = picked(all.iter().map(|t| t.id.clone()).collect());
            all.into_iter().filter(|t| keep.contains(&t.id)).collect()
        }
        SuiteName::MiniWob => {
            let every = miniwob::all_names();
            if every.is_empty() {
                bail!(
                    "no MiniWoB pages in {} (run `cargo xtask setup --eval`, or set {})",
                    miniwob::html_dir().display(),
                    miniwob::MINIWOB_DIR_ENV
                );
            }
            let names: Vec<String> = match &opts.tasks {
                Some(ids) if ids.iter().any(|i| i == "all" || i == "miniwob/all") => every,
                Some(_) => picked(every),
                None if oracle_only => {
                    miniwob::ORACLE_TASKS.iter().map(|s| (*s).to_owned()).collect()
                }
                None => miniwob::DEFAULT_TASKS.iter().map(|s| (*s).to_owned()).collect(),
            };
            names.iter().map(|n| miniwob::task(n)).collect()
        }
    };
    Ok(if oracle_only {
        tasks
            .into_iter()
            .filter(|t| match t.suite {
                SuiteName::Sites => sites::oracle(&t.id).is_some(),
                SuiteName::MiniWob => miniwob::oracle(&t.id).is_some(),
                SuiteName::Widgets => widgets::oracle(&t.id).is_some(),
                SuiteName::Libs => libs::oracle(&t.id).is_some(),
            })
            .collect()
    } else {
        tasks
    })
}

/// `--tasks` entries that no selected suite has (a typo would otherwise run nothing).
fn unknown_ids(opts: &Options, selected: &[EvalTask]) -> Vec<String> {
    let Some(ids) = &opts.tasks else { return Vec::new() };
    ids.iter()
        .filter(|i| !matches!(i.as_str(), "all" | "miniwob/all"))
        .filter(|i| !selected.iter().any(|t| names(i, t.suite, &t.id)))
        .cloned()
        .collect()
}

/// Runs the evaluation and returns its report.
pub fn evaluate(opts: &Options) -> Result<Report> {
    let slot = OracleSlot::default();
    let oracle_server = match opts.model {
        Model::Oracle => {
            let slot = slot.clone();
            Some(ScriptedLlm::start(move |req| slot.reply(req))?)
        }
        _ => None,
    };
    let endpoint = match (&opts.model, &oracle_server) {
        (Model::Oracle, Some(llm)) => {
            Endpoint::Local { base_url: llm.base_url(), model: "oracle".into() }
        }
        (Model::Local { base_url, model }, _) => {
            Endpoint::Local { base_url: base_url.clone(), model: model.clone() }
        }
        _ => Endpoint::Configured,
    };
    let suites: Vec<(SuiteName, Vec<EvalTask>, FixtureServer)> = opts
        .suites
        .iter()
        .map(|s| {
            let tasks = select(*s, opts)?;
            let site = match s {
                SuiteName::Sites => sites::serve()?,
                SuiteName::MiniWob => FixtureServer::start(miniwob::html_dir())?,
                SuiteName::Widgets => FixtureServer::start(widgets::root())?,
                SuiteName::Libs => crate::libzoo::serve()?,
            };
            Ok((*s, tasks, site))
        })
        .collect::<Result<_>>()?;
    let selected: Vec<EvalTask> = suites.iter().flat_map(|(_, t, _)| t.iter().cloned()).collect();
    let unknown = unknown_ids(opts, &selected);
    if !unknown.is_empty() {
        bail!("no such task in the suites run: {}", unknown.join(", "));
    }
    let total: usize = selected.len() * opts.runs as usize;
    if total == 0 {
        bail!("no task selected");
    }
    let stack = Stack::launch(&StackOptions {
        extension: opts.extension.clone(),
        host: opts.host.clone(),
        endpoint,
        role_models: opts.role_models.clone(),
        allowed_dirs: suites
            .iter()
            .flat_map(|(_, tasks, _)| tasks.iter())
            .flat_map(|t| t.resources.iter().filter_map(|(_, p)| p.parent().map(PathBuf::from)))
            .collect(),
    })?;
    let (model, base_url) = match stack.state()?.host {
        HostView::Connected { llm } => (llm.model, llm.base_url),
        _ => ("unknown".into(), String::new()),
    };
    eprintln!("eval: {total} task run(s), model {model} at {base_url}");
    let mut results: Vec<TaskResult> = Vec::new();
    for run in 1..=opts.runs {
        for (_, tasks, site) in &suites {
            let mut group: Option<&str> = None;
            for task in tasks {
                if task.session.is_none() || task.session != group {
                    stack.new_session()?;
                }
                group = task.session;
                let label = format!("[{}/{total} run {run}]", results.len() + 1);
                let env = run::TaskEnv {
                    site,
                    oracle: oracle_server.as_ref().map(|_| &slot),
                    budget: opts.budget,
                    run,
                    label: label.clone(),
                };
                let result = run::run_task(&stack, task, &env)
                    .with_context(|| format!("running {}", task.id))?;
                eprintln!(
                    "{label} {}: {} ({} steps, {} calls, {:.1} s){}",
                    task.id,
                    if result.success { "SUCCESS" } else { "FAILED" },
                    result.steps,
                    result.usage.calls,
                    result.wall_s,
                    result.failure.as_deref().map(|f| format!(" — {f}")).unwrap_or_default()
                );
                results.push(result);
            }
        }
    }
    if let Some(llm) = &oracle_server {
        llm.assert_no_script_panics()?;
    }
    let settings = Settings {
        suites: opts.suites.iter().map(|s| s.as_str().to_owned()).collect(),
        model: if matches!(opts.model, Model::Oracle) { "oracle (scripted)".into() } else { model },
        base_url,
        role_models: opts
            .role_models
            .iter()
            .map(|(role, model)| (role.as_str().to_owned(), model.clone()))
            .collect(),
        date: report::today(),
        runs: opts.runs,
        max_steps: opts.budget.steps,
        time_budget_s: opts.budget.time.as_secs(),
    };
    Ok(Report::new(settings, results))
}
