//! `waymark-eval`: the evaluation runner behind `cargo xtask eval` (which builds the extension
//! and host and installs the suites' tools first). Writes `eval-<date>-<time>.md` and `.json`
//! into `--out` and prints the markdown; exits non-zero when `--require-all` is given and a
//! task failed.

use anyhow::{Context, Result, bail};
use clap::Parser;
use std::path::PathBuf;
use std::time::Duration;
use waymark_protocol::LlmRole;
use waymark_tests::e2e;
use waymark_tests::eval::task::{Budget, SuiteName};
use waymark_tests::eval::{self, Model, Options};
use waymark_tests::paths;

/// Measures how often Waymark finishes tasks, against any endpoint the host can call.
#[derive(Parser, Debug)]
#[command(name = "waymark-eval")]
struct Args {
    /// Suites to run: `sites`, `miniwob` (comma-separated or repeated).
    #[arg(long, value_delimiter = ',', default_value = "sites")]
    suite: Vec<String>,
    /// Only these tasks (ids; for MiniWoB any page name, or `all`).
    #[arg(long, value_delimiter = ',')]
    tasks: Option<Vec<String>>,
    /// Runs per task (the success rate's spread is over runs).
    #[arg(long, default_value_t = 1)]
    runs: u32,
    /// A role's model, `ROLE=MODEL` (planner, navigator, validator, summariser); repeatable.
    #[arg(long = "role-model")]
    role_model: Vec<String>,
    /// Navigate with the scripted oracle instead of a model (CI).
    #[arg(long, conflicts_with_all = ["base_url", "llama"])]
    oracle: bool,
    /// Start the cached llama.cpp server (Gemma 3 270M) and evaluate against it (CI: the real
    /// wire; the model is far too small to solve tasks).
    #[arg(long, conflicts_with = "base_url")]
    llama: bool,
    /// An OpenAI-compatible server to use instead of the configured endpoint.
    #[arg(long)]
    base_url: Option<String>,
    /// The model name for `--base-url`.
    #[arg(long, default_value = "local")]
    model: String,
    /// Step budget per task.
    #[arg(long, default_value_t = Budget::default().steps)]
    max_steps: u32,
    /// Time budget per task, in seconds.
    #[arg(long, default_value_t = Budget::default().time.as_secs())]
    time_budget: u64,
    /// Where the markdown and JSON go (default: `<target>/eval`).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Exit with failure when any task fails (the oracle run in CI).
    #[arg(long)]
    require_all: bool,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let suites = args
        .suite
        .iter()
        .map(|s| {
            SuiteName::parse(s)
                .with_context(|| format!("unknown suite {s:?} (sites, miniwob, widgets, libs)"))
        })
        .collect::<Result<Vec<_>>>()?;
    let role_models = args
        .role_model
        .iter()
        .map(|rm| {
            let (role, model) = rm
                .split_once('=')
                .with_context(|| format!("--role-model {rm:?}: write ROLE=MODEL"))?;
            // The host's own parser: `summarizer` and any case are accepted, as the host does.
            let role: LlmRole = role.parse().map_err(|_| {
                anyhow::anyhow!(
                    "--role-model {rm:?}: the roles are planner, navigator, validator, summariser"
                )
            })?;
            Ok((role, model.to_owned()))
        })
        .collect::<Result<Vec<_>>>()?;
    let extension =
        std::env::var_os("WAYMARK_EXTENSION_DIR").map_or_else(paths::extension_dir, PathBuf::from);
    let host = paths::host_binary();
    e2e::check_build(&extension, &host, e2e::Needs::Extension)
        .with_context(|| format!("run `{}` first (cargo xtask eval does)", e2e::BUILD_COMMAND))?;
    let llama = if args.llama { Some(eval::llama::LlamaServer::start()?) } else { None };
    let model = match (args.oracle, &llama, args.base_url) {
        (true, _, _) => Model::Oracle,
        (false, Some(server), _) => {
            Model::Local { base_url: server.base_url(), model: eval::llama::MODEL_NAME.into() }
        }
        (false, None, Some(base_url)) => Model::Local { base_url, model: args.model },
        (false, None, None) => Model::Configured,
    };
    let opts = Options {
        suites,
        tasks: args.tasks,
        runs: args.runs.max(1),
        budget: Budget { steps: args.max_steps, time: Duration::from_secs(args.time_budget) },
        model,
        role_models,
        extension,
        host,
    };
    let report = eval::evaluate(&opts)?;
    let out = args.out.unwrap_or_else(|| paths::target_dir().join("eval"));
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let stamp = format!(
        "{}-{}",
        report.settings.date,
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() % 86_400)
            .unwrap_or(0)
    );
    let md = report.markdown();
    let md_path = out.join(format!("eval-{stamp}.md"));
    let json_path = out.join(format!("eval-{stamp}.json"));
    std::fs::write(&md_path, &md).with_context(|| format!("writing {}", md_path.display()))?;
    std::fs::write(&json_path, serde_json::to_string_pretty(&report)?)
        .with_context(|| format!("writing {}", json_path.display()))?;
    println!("{md}");
    eprintln!("written to {} and {}", md_path.display(), json_path.display());
    if args.require_all && !report.all_passed() {
        bail!(
            "{} of {} task runs failed",
            report.totals.task_runs - report.totals.successes,
            report.totals.task_runs
        );
    }
    Ok(())
}
