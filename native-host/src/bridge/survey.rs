//! What the bridge directory says about the user's browsers, so that a client (and `doctor`)
//! names the real state instead of guessing: live registrations to connect to, registrations
//! left by a browser that is no longer running, and browsers whose user switched external
//! agents off.

use std::path::PathBuf;

use super::endpoint;
use super::registry::{self, BridgeError, Registration};
use crate::config::Env;

/// The bridge directory, read.
#[derive(Debug, Default)]
pub struct Survey {
    /// The directory read.
    pub dir: PathBuf,
    /// Browsers that can be connected to.
    pub live: Vec<Registration>,
    /// Registrations whose host process ended (their files are removed on the way).
    pub gone: Vec<Registration>,
    /// Browsers that run with external agents switched off.
    pub off: Vec<Registration>,
}

impl Survey {
    /// Reads this user's bridge directory (only when it is private: a directory others may
    /// write is not trusted) and clears what dead hosts left.
    pub fn take(env: &dyn Env) -> Result<Self, BridgeError> {
        let dir = registry::runtime_dir(env)?;
        if dir.exists() {
            registry::private_dir(&dir)?;
        }
        let mut survey = Self { dir, ..Self::default() };
        for reg in registry::list(&survey.dir) {
            if !endpoint::alive(reg.pid) {
                let info = reg.socket.with_extension("json");
                remove(&[&reg.socket, &info]);
                survey.gone.push(reg);
            } else if registry::reachable(&reg) {
                survey.live.push(reg);
            }
        }
        for reg in registry::list_off(&survey.dir) {
            if endpoint::alive(reg.pid) {
                survey.off.push(reg);
            } else {
                remove(&[&registry::off_path(&survey.dir, reg.pid)]);
            }
        }
        Ok(survey)
    }

    /// Why no browser can be connected to: switched off beats a browser that closed, which
    /// beats nothing at all.
    pub fn why_none(&self) -> BridgeError {
        if let Some(off) = self.off.first() {
            return BridgeError::SwitchedOff(off.label.clone());
        }
        if let Some(gone) = self.gone.last() {
            return BridgeError::BrowserGone {
                dir: self.dir.clone(),
                label: gone.label.clone(),
                pid: gone.pid,
            };
        }
        BridgeError::NotRegistered(self.dir.clone())
    }

    /// Picks the live registration the user named (a case-insensitive part of its label or
    /// its pid), or the only one.
    pub fn pick(self, wanted: Option<&str>) -> Result<Registration, BridgeError> {
        let names =
            || self.live.iter().map(|r| format!("“{}”", r.label)).collect::<Vec<_>>().join(", ");
        if self.live.is_empty() {
            return Err(self.why_none());
        }
        match wanted.map(str::trim).filter(|w| !w.is_empty()) {
            Some(w) => {
                let lower = w.to_lowercase();
                let mut hits: Vec<&Registration> = self
                    .live
                    .iter()
                    .filter(|r| r.label.to_lowercase().contains(&lower) || r.pid.to_string() == w)
                    .collect();
                match hits.len() {
                    1 => Ok(hits.remove(0).clone()),
                    _ => Err(BridgeError::NoMatch { wanted: w.to_owned(), found: names() }),
                }
            }
            None if self.live.len() == 1 => Ok(self.live[0].clone()),
            None => Err(BridgeError::Several(names())),
        }
    }
}

fn remove(paths: &[&PathBuf]) {
    for path in paths {
        if let Err(e) = std::fs::remove_file(path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::debug!(path = %path.display(), error = %e, "stale file not removed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg(pid: u32, label: &str) -> Registration {
        Registration { pid, label: label.into(), pipe: None, socket: PathBuf::new() }
    }

    fn live(regs: Vec<Registration>) -> Survey {
        Survey { dir: PathBuf::from("/b"), live: regs, ..Survey::default() }
    }

    #[test]
    fn picks_the_only_one_or_the_named_one() {
        assert!(matches!(live(vec![]).pick(None), Err(BridgeError::NotRegistered(_))));
        assert_eq!(live(vec![reg(1, "chromium")]).pick(None).expect("only").pid, 1);
        let two = || live(vec![reg(1, "chromium (work)"), reg(2, "chrome")]);
        assert!(matches!(two().pick(None), Err(BridgeError::Several(_))));
        assert_eq!(two().pick(Some("WORK")).expect("named").pid, 1);
        assert_eq!(two().pick(Some("2")).expect("by pid").pid, 2);
        assert!(matches!(two().pick(Some("edge")), Err(BridgeError::NoMatch { .. })));
    }

    #[test]
    fn no_browser_names_the_real_state() {
        let mut s = live(vec![]);
        let text = s.why_none().to_string();
        assert!(text.contains("no browser has registered") && text.contains("/b"), "{text}");
        s.gone.push(reg(7, "chromium"));
        let text = s.why_none().to_string();
        assert!(text.contains("not running any more") && text.contains("process 7"), "{text}");
        s.off.push(reg(8, "chrome"));
        let text = s.why_none().to_string();
        assert!(text.contains("“chrome” runs") && text.contains("switched off"), "{text}");
    }

    /// Runs with a minimal environment (what the official MCP SDKs pass): only `HOME`.
    struct HomeOnly(String);

    impl Env for HomeOnly {
        fn var(&self, name: &str) -> Option<String> {
            (name == "HOME").then(|| self.0.clone())
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_registration_is_found_from_home_alone_and_a_dead_one_is_named() {
        let tmp = tempfile::tempdir().expect("tmp");
        let env = HomeOnly(tmp.path().display().to_string());
        let dir = registry::runtime_dir(&env).expect("dir");
        assert!(dir.starts_with(tmp.path()), "{}", dir.display());
        registry::private_dir(&dir).expect("private");
        // This process stands in for a live host, a pid past the maximum for one that ended.
        let me = std::process::id();
        let (sock, info) = registry::paths_for(&dir, me, 1);
        std::fs::write(&sock, "").expect("sock");
        std::fs::write(&info, format!(r#"{{"pid":{me},"label":"chromium"}}"#)).expect("info");
        let (dead_sock, dead_info) = registry::paths_for(&dir, 999_999_999, 1);
        std::fs::write(&dead_sock, "").expect("sock");
        std::fs::write(&dead_info, r#"{"pid":999999999,"label":"ghost"}"#).expect("info");
        let survey = Survey::take(&env).expect("survey");
        assert_eq!(survey.live.len(), 1);
        assert_eq!(survey.gone.len(), 1);
        assert!(!dead_sock.exists() && !dead_info.exists(), "a dead host's files are removed");
        assert_eq!(survey.pick(None).expect("live").label, "chromium");
        // Switched off: the live registration is gone and the marker names the browser.
        std::fs::remove_file(&sock).expect("rm");
        std::fs::remove_file(&info).expect("rm");
        std::fs::write(
            registry::off_path(&dir, me),
            format!(r#"{{"pid":{me},"label":"chromium"}}"#),
        )
        .expect("off");
        let err = Survey::take(&env).expect("survey").pick(None).expect_err("off");
        assert!(matches!(err, BridgeError::SwitchedOff(ref l) if l == "chromium"), "{err}");
    }
}
