//! The command line (everything except host mode): `install`, `uninstall`, `doctor`, `config`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};

use waymark_protocol::SettingKey;

use crate::config;
use crate::doctor::{self, DoctorOptions};
use crate::install::{self, ALL_BROWSERS, Target};

/// Waymark's native host. Chrome starts it with the extension origin as its only argument;
/// people run it with a subcommand.
#[derive(Debug, Parser)]
#[command(name = "waymark-host", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Copy this binary into your user directory and register it as the `com.waymark.host`
    /// native-messaging host (`--browser all`: every Chromium-family browser present).
    Install(InstallArgs),
    /// Remove the registration (and the copy `install` made).
    Uninstall(TargetArgs),
    /// Check manifests, config, LLM endpoint and export directory; print what to fix.
    Doctor(TargetArgs),
    /// Show or change the host's config file (mode 0600).
    Config {
        /// What to do with it.
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Read, search and delete captured session transcripts.
    Sessions {
        /// What to do.
        #[command(subcommand)]
        action: SessionsAction,
    },
    /// Write a captured session into the export directory (or to stdout).
    Export {
        /// Session id (see `sessions list`).
        id: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ExportFmt::Md)]
        format: ExportFmt,
        /// Print instead of writing a file.
        #[arg(long)]
        stdout: bool,
    },
    /// The bridge external agents use: `list` the browsers that have external agents on,
    /// `ping` one (or all) through its extension and back.
    Bridge {
        /// What to do.
        #[command(subcommand)]
        action: BridgeAction,
    },
    /// Serve the browser and the captured sessions as an MCP server on stdio (for Claude Code
    /// and others).
    Mcp {
        /// Which browser to use when several have external agents on: part of its label (see
        /// `waymark-host bridge list`); also `WAYMARK_BROWSER`.
        #[arg(long)]
        browser: Option<String>,
    },
}

/// `bridge` actions.
#[derive(Debug, Subcommand)]
pub enum BridgeAction {
    /// The browsers that have external agents switched on.
    List,
    /// A ping through each browser's (or the named one's) extension and back.
    Ping {
        /// Part of the browser's label, or its host's pid.
        #[arg(long)]
        browser: Option<String>,
    },
}

/// `sessions` actions.
#[derive(Debug, Subcommand)]
pub enum SessionsAction {
    /// One line per session, most recent first.
    List,
    /// Every event of a session, one per line.
    Show {
        /// Session id.
        id: String,
    },
    /// Find text in every session (case-insensitive).
    Search {
        /// Text to find.
        text: String,
    },
    /// Delete a session's transcript.
    Delete {
        /// Session id.
        id: String,
    },
    /// Delete transcripts older than the retention period.
    Prune,
}

/// Formats of `export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFmt {
    /// Markdown, ready to paste into another agent.
    Md,
    /// One JSON document.
    Json,
}

/// `install`'s options.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Where to register.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Register this binary where it is instead of copying it into the user's directory
    /// (development builds, which are rebuilt in place).
    #[arg(long)]
    pub in_place: bool,
}

/// Which manifests to act on.
#[derive(Debug, Args)]
pub struct TargetArgs {
    /// Browser whose per-user manifest location to use.
    #[arg(long, value_enum)]
    pub browser: Option<BrowserArg>,
    /// A dedicated Chromium profile: the manifest goes to DIR/NativeMessagingHosts/.
    #[arg(long, value_name = "DIR")]
    pub user_data_dir: Option<PathBuf>,
    /// Another extension ID allowed to connect besides Waymark's fixed one (the side panel
    /// names its own when it differs); may be repeated.
    #[arg(long, value_name = "ID")]
    pub extension_id: Vec<String>,
}

/// Browsers `--browser` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BrowserArg {
    /// Chromium.
    Chromium,
    /// Google Chrome.
    Chrome,
    /// Brave.
    Brave,
    /// Microsoft Edge.
    Edge,
    /// Vivaldi.
    Vivaldi,
    /// Every browser above that is present on this machine.
    All,
}

impl BrowserArg {
    /// The `native_messaging` crate's browser keys for this choice.
    pub fn keys(self) -> Vec<&'static str> {
        match self {
            Self::Chromium => vec!["chromium"],
            Self::Chrome => vec!["chrome"],
            Self::Brave => vec!["brave"],
            Self::Edge => vec!["edge"],
            Self::Vivaldi => vec!["vivaldi"],
            Self::All => ALL_BROWSERS.to_vec(),
        }
    }
}

/// `config` actions.
#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// Print the config file's path.
    Path,
    /// Print the effective settings (file + environment), without the key.
    Show,
    /// Set KEY to VALUE (the settings are listed below). VALUE `-` reads it from stdin, so a
    /// key stays out of shell history; lists take one item per line (or, for
    /// `files.allowed_dirs`, a PATH-like list).
    #[command(after_help = settings_help())]
    Set {
        /// Setting name, e.g. `llm.model`.
        key: SettingKey,
        /// New value, or `-` for stdin.
        value: String,
    },
    /// Remove KEY from the file (the default or environment applies again).
    #[command(after_help = settings_help())]
    Unset {
        /// Setting name.
        key: SettingKey,
    },
}

/// Runs a subcommand; the exit code is non-zero when something needs fixing.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Install(args) => install_cmd(&args),
        Command::Uninstall(args) => uninstall_cmd(&args),
        Command::Doctor(args) => doctor_cmd(&args),
        Command::Config { action } => config_cmd(action),
        Command::Sessions { action } => sessions_cmd(action),
        Command::Export { id, format, stdout } => export_cmd(&id, format, stdout),
        Command::Bridge { action } => bridge_cmd(action),
        Command::Mcp { browser } => {
            let browser = browser.or_else(|| std::env::var("WAYMARK_BROWSER").ok());
            crate::mcp::run(sessions_dir()?, browser)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn bridge_cmd(action: BridgeAction) -> anyhow::Result<ExitCode> {
    use crate::config::ProcessEnv;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    match action {
        BridgeAction::List => {
            let survey = crate::bridge::survey::Survey::take(&ProcessEnv)?;
            if survey.live.is_empty() {
                println!("{}", survey.why_none());
                return Ok(ExitCode::FAILURE);
            }
            for reg in survey.live {
                let endpoint = reg.pipe.clone().unwrap_or_else(|| reg.socket.display().to_string());
                println!("{}\t{}\t{endpoint}", reg.pid, reg.label);
            }
            Ok(ExitCode::SUCCESS)
        }
        BridgeAction::Ping { browser } => {
            let pinged = match runtime
                .block_on(crate::doctor_bridge::ping_all(&ProcessEnv, browser.as_deref()))
            {
                Ok(p) => p,
                Err(e) => {
                    println!("{e}");
                    return Ok(ExitCode::FAILURE);
                }
            };
            let mut ok = true;
            for p in pinged {
                match p.result {
                    Ok(rtt) => {
                        println!("ok: {} answers ({:.1} ms)", p.label, rtt.as_secs_f64() * 1000.0)
                    }
                    Err(e) => {
                        ok = false;
                        println!("FIX: {}: {e}", p.label);
                    }
                }
            }
            Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
    }
}

/// Where transcripts live: from the config, or the data dir when the config is broken (so
/// sessions stay readable while the user fixes it).
fn sessions_dir() -> anyhow::Result<PathBuf> {
    let env = config::ProcessEnv;
    match config::Config::load_with(&env) {
        Ok(cfg) => Ok(cfg.transcripts.dir),
        Err(_) => Ok(config::data_dir(&env)?.join("sessions")),
    }
}

fn sessions_cmd(action: SessionsAction) -> anyhow::Result<ExitCode> {
    use crate::transcript::{self, read};
    let dir = sessions_dir()?;
    match action {
        SessionsAction::List => {
            let list = read::list_sessions(&dir)?;
            if list.is_empty() {
                println!("no sessions in {}", dir.display());
            }
            for s in list {
                println!(
                    "{}\t{}\t{} events\t{}{}",
                    s.id,
                    s.last.as_deref().unwrap_or("-"),
                    s.events,
                    s.title.as_deref().unwrap_or("(untitled)"),
                    if s.ended { "" } else { " [open]" }
                );
            }
        }
        SessionsAction::Show { id } => {
            for (i, e) in read::read_session(&dir, &id)?.iter().enumerate() {
                let ts = e["ts"].as_str().unwrap_or("-");
                let kind = e["kind"].as_str().unwrap_or("?");
                println!("{i}\t{ts}\t{kind}\t{}", read::event_text(e));
            }
        }
        SessionsAction::Search { text } => {
            let hits = read::search(&dir, &text, 200)?;
            if hits.is_empty() {
                println!("no match for {text:?}");
                return Ok(ExitCode::FAILURE);
            }
            for h in hits {
                println!("{}#{}\t{}\t{}", h.session_id, h.index, h.kind, h.excerpt);
            }
        }
        SessionsAction::Delete { id } => {
            read::delete_session(&dir, &id)?;
            println!("deleted session {id}");
        }
        SessionsAction::Prune => {
            let cfg = config::Config::load()?;
            let removed = transcript::prune(
                &dir,
                cfg.transcripts.retention_days,
                std::time::SystemTime::now(),
            )?;
            println!(
                "removed {} session(s) older than {} days{}",
                removed.len(),
                cfg.transcripts.retention_days,
                if removed.is_empty() {
                    String::new()
                } else {
                    format!(": {}", removed.join(", "))
                }
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn export_cmd(id: &str, format: ExportFmt, stdout: bool) -> anyhow::Result<ExitCode> {
    use crate::transcript::read;
    use waymark_protocol::{ExportFormat, ExportWrite};
    let events = read::read_session(&sessions_dir()?, id)?;
    let (content, fmt) = match format {
        ExportFmt::Md => (read::to_markdown(id, &events), ExportFormat::Md),
        ExportFmt::Json => {
            (serde_json::to_string_pretty(&read::to_json(id, &events))?, ExportFormat::Json)
        }
    };
    if stdout {
        println!("{content}");
        return Ok(ExitCode::SUCCESS);
    }
    let cfg = config::Config::load()?;
    let req = ExportWrite { name_hint: Some(format!("waymark-{id}")), format: fmt, content };
    let written = crate::export::write_export(&cfg.export_dir, &req)?;
    println!("{}", written.path);
    Ok(ExitCode::SUCCESS)
}

fn targets(args: &TargetArgs, only_present: bool) -> anyhow::Result<Vec<Target>> {
    if let Some(dir) = &args.user_data_dir {
        return Ok(vec![Target::UserDataDir(dir.clone())]);
    }
    let Some(browser) = args.browser else {
        bail!(
            "say where: --browser chromium|chrome|brave|edge|vivaldi|all, or --user-data-dir DIR"
        );
    };
    let all: Vec<Target> = browser.keys().into_iter().map(Target::Browser).collect();
    if browser != BrowserArg::All || !only_present {
        return Ok(all);
    }
    let present: Vec<Target> = all.into_iter().filter(Target::seems_installed).collect();
    if present.is_empty() {
        bail!(
            "none of {ALL_BROWSERS:?} has a profile here; name one with --browser to install anyway"
        );
    }
    Ok(present)
}

fn install_cmd(args: &InstallArgs) -> anyhow::Result<ExitCode> {
    let ids = install::allowed_ids(&args.target.extension_id)?;
    let targets = targets(&args.target, true)?;
    let mut exe = install::current_exe()?;
    if !args.in_place {
        exe = install::place::place(&exe, &install::place::bin_dir()?)
            .context("copying the host into your user directory")?;
    }
    for t in targets {
        // Every copy of Waymark the browser has may connect: the store's and an unpacked
        // release zip's (whose ID Chrome derives from its folder) alike.
        let copies = t.waymark_copies();
        let mut these = ids.clone();
        for copy in &copies {
            if !these.contains(&copy.id) {
                these.push(copy.id.clone());
            }
            println!("found Waymark {} in {}", copy.id, copy.profile.display());
        }
        let path = install::install(&t, &exe, &these)
            .with_context(|| format!("installing for {}", t.label()))?;
        println!(
            "installed {} for {} at {}",
            waymark_protocol::HOST_NAME,
            t.label(),
            path.display()
        );
    }
    println!("host binary: {}", exe.display());
    println!("Waymark is ready: reopen its side panel in the browser.");
    Ok(ExitCode::SUCCESS)
}

fn uninstall_cmd(args: &TargetArgs) -> anyhow::Result<ExitCode> {
    for t in targets(args, false)? {
        let (path, existed) =
            install::uninstall(&t).with_context(|| format!("removing for {}", t.label()))?;
        if existed {
            println!("removed {}", path.display());
        } else {
            println!("nothing to remove for {} ({} absent)", t.label(), path.display());
        }
    }
    if args.user_data_dir.is_none() {
        let dir = install::place::bin_dir()?;
        match install::place::remove(&dir) {
            Ok(true) => println!("removed {}", dir.join(install::place::BIN_NAME).display()),
            Ok(false) => {}
            Err(e) => println!("{e} (delete it by hand once no browser runs it)"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn doctor_cmd(args: &TargetArgs) -> anyhow::Result<ExitCode> {
    let explicit =
        args.user_data_dir.is_some() || args.browser.is_some_and(|b| b != BrowserArg::All);
    let opts = DoctorOptions {
        targets: if args.browser.is_some() || args.user_data_dir.is_some() {
            targets(args, false)?
        } else {
            Vec::new()
        },
        explicit,
        extension_id: args.extension_id.first().cloned(),
        offline: false,
        from_browser: false,
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let checks = runtime.block_on(doctor::run(&opts, &crate::config::ProcessEnv));
    for c in &checks {
        println!("{c}");
    }
    Ok(if checks.iter().all(|c| c.ok) { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn config_cmd(action: ConfigAction) -> anyhow::Result<ExitCode> {
    let env = crate::config::ProcessEnv;
    let path = config::config_dir(&env)?.join(config::CONFIG_FILE_NAME);
    match action {
        ConfigAction::Path => println!("{}", path.display()),
        ConfigAction::Show => {
            let cfg = config::Config::load_with(&env)?;
            let exists = if path.exists() { "" } else { " (absent: defaults and environment)" };
            println!("config file:  {}{exists}", path.display());
            println!("provider:     {}", cfg.llm.provider.as_str());
            println!("base_url:     {}", cfg.llm.base_url);
            println!("model:        {}", cfg.llm.model);
            println!("api_key:      {}", if cfg.llm.api_key.is_some() { "set" } else { "not set" });
            if let Some(n) = cfg.llm.max_tokens {
                println!("max_tokens:   {n}");
            }
            println!("retry_base:   {} ms", cfg.llm.retry_base.as_millis());
            println!("idle_timeout: {} s", cfg.llm.idle_timeout.as_secs());
            println!("export_dir:   {}", cfg.export_dir.display());
            for (role, l) in &cfg.roles {
                if *l != cfg.llm {
                    let limit =
                        l.max_tokens.map(|n| format!(", max_tokens {n}")).unwrap_or_default();
                    println!(
                        "role {role}: {} {} model {} (key {}{limit})",
                        l.provider.as_str(),
                        l.base_url,
                        l.model,
                        if l.api_key.is_some() { "set" } else { "not set" }
                    );
                }
            }
            let t = &cfg.transcripts;
            println!(
                "transcripts:  {} in {} (keep {} days)",
                if t.enabled { "on" } else { "off" },
                t.dir.display(),
                t.retention_days
            );
            println!(
                "read dirs:    {:?} (max {} bytes)",
                cfg.files.allowed_dirs, cfg.files.max_bytes
            );
        }
        ConfigAction::Set { key, value } => {
            let mut value = if value == "-" {
                let mut s = String::new();
                std::io::stdin().read_to_string(&mut s)?;
                s.trim().to_owned()
            } else {
                value
            };
            if key == SettingKey::AllowedDirs && !value.contains('\n') {
                // A PATH-like list on the command line; the setting takes one per line.
                let dirs: Vec<String> = std::env::split_paths(&value)
                    .map(|d| d.to_string_lossy().into_owned())
                    .collect();
                value = dirs.join("\n");
            }
            let setting = key.with_text(Some(&value))?;
            // Checked the way the host reads it (file alone and with the environment) before
            // anything is saved, as `config.set` from the side panel is.
            crate::settings::apply(&[setting], &env)
                .context("the new value makes the config invalid; nothing was saved")?;
            println!("set {key} in {}", path.display());
        }
        ConfigAction::Unset { key } => {
            crate::settings::apply(&[key.with_text(None)?], &env)
                .context("without it the config is invalid; nothing was saved")?;
            println!("unset {key} in {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The setting names and what each takes, for `config set --help`.
fn settings_help() -> String {
    format!("Settings:\n{}", SettingKey::help())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_parses() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
        let cli =
            Cli::try_parse_from(["waymark-host", "install", "--browser", "all"]).expect("parse");
        assert!(matches!(
            cli.command,
            Command::Install(InstallArgs {
                target: TargetArgs { browser: Some(BrowserArg::All), .. },
                in_place: false
            })
        ));
        assert!(Cli::try_parse_from(["waymark-host", "install", "--browser", "firefox"]).is_err());
    }
}
