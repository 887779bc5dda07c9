//! The command line (everything except host mode): `install`, `uninstall`, `doctor`, `config`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::{self, load_file, save_file, set_key};
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
    /// Register this binary as the `com.waymark.host` native-messaging host.
    Install(TargetArgs),
    /// Remove the registration.
    Uninstall(TargetArgs),
    /// Check manifests, config, LLM endpoint and export directory; print what to fix.
    Doctor(TargetArgs),
    /// Show or change the host's config file (mode 0600).
    Config {
        /// What to do with it.
        #[command(subcommand)]
        action: ConfigAction,
    },
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
    /// Extension allowed to connect (default: Waymark's fixed ID).
    #[arg(long, value_name = "ID")]
    pub extension_id: Option<String>,
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
    /// Set KEY (llm.provider, llm.base_url, llm.model, llm.api_key, llm.retry_base_ms,
    /// llm.idle_timeout_secs, llm.request_timeout_secs, llm.max_concurrent, export_dir).
    /// VALUE `-` reads it from stdin, so a key stays out of shell history.
    Set {
        /// Setting name.
        key: String,
        /// New value, or `-` for stdin.
        value: String,
    },
    /// Remove KEY from the file (the default or environment applies again).
    Unset {
        /// Setting name.
        key: String,
    },
}

/// Runs a subcommand; the exit code is non-zero when something needs fixing.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Install(args) => install_cmd(&args),
        Command::Uninstall(args) => uninstall_cmd(&args),
        Command::Doctor(args) => doctor_cmd(&args),
        Command::Config { action } => config_cmd(action),
    }
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

fn install_cmd(args: &TargetArgs) -> anyhow::Result<ExitCode> {
    let exe = install::current_exe()?;
    if let Some(id) = &args.extension_id {
        install::validate_extension_id(id)?;
    }
    for t in targets(args, true)? {
        let path = install::install(&t, &exe, args.extension_id.as_deref())
            .with_context(|| format!("installing for {}", t.label()))?;
        println!(
            "installed {} for {} at {}",
            waymark_core::protocol::HOST_NAME,
            t.label(),
            path.display()
        );
    }
    println!("host binary: {}", exe.display());
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
        extension_id: args.extension_id.clone(),
        offline: false,
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
            println!("retry_base:   {} ms", cfg.llm.retry_base.as_millis());
            println!("idle_timeout: {} s", cfg.llm.idle_timeout.as_secs());
            println!("export_dir:   {}", cfg.export_dir.display());
        }
        ConfigAction::Set { key, value } => {
            let value = if value == "-" {
                let mut s = String::new();
                std::io::stdin().read_to_string(&mut s)?;
                s.trim().to_owned()
            } else {
                value
            };
            let mut file = load_file(&path)?.unwrap_or_default();
            set_key(&mut file, &key, Some(value))?;
            save_file(&path, &file)?;
            // Validate the result the way the host will read it.
            config::Config::load_with(&env).context("the new value makes the config invalid")?;
            println!("set {key} in {}", path.display());
        }
        ConfigAction::Unset { key } => {
            let mut file = load_file(&path)?.unwrap_or_default();
            set_key(&mut file, &key, None)?;
            save_file(&path, &file)?;
            println!("unset {key} in {}", path.display());
        }
    }
    Ok(ExitCode::SUCCESS)
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
            Command::Install(TargetArgs { browser: Some(BrowserArg::All), .. })
        ));
        assert!(Cli::try_parse_from(["waymark-host", "install", "--browser", "firefox"]).is_err());
    }
}
