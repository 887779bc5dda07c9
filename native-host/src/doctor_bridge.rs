//! The doctor's bridge check: end to end from here through each registered browser's socket
//! to its extension's service worker and back (a `ping` the worker answers), naming the broken
//! link when it fails. Also `waymark-host bridge list` and `bridge ping`.

use std::time::{Duration, Instant};

use waymark_protocol::{BridgeCall, BridgeResult};

use crate::bridge::BridgeError;
use crate::bridge::client::{self, Target};
use crate::bridge::registry;
use crate::bridge::survey::Survey;
use crate::config::Env;
use crate::doctor::Check;

/// Longest a ping may take before the check reports the browser as not answering.
const PING_TIMEOUT: Duration = Duration::from_secs(10);

/// One ping's outcome for one browser.
#[derive(Debug)]
pub struct Pinged {
    /// The browser's label.
    pub label: String,
    /// The round trip, or what broke.
    pub result: Result<Duration, BridgeError>,
}

/// Pings every registered browser (or the one `browser` names); when none is registered,
/// why (nothing registered where, a browser that closed, external agents switched off).
pub async fn ping_all(
    env: &(dyn Env + Sync),
    browser: Option<&str>,
) -> Result<Vec<Pinged>, BridgeError> {
    let survey = Survey::take(env)?;
    let chosen = match browser {
        Some(_) => vec![survey.pick(browser)?],
        None if survey.live.is_empty() => return Err(survey.why_none()),
        None => survey.live,
    };
    let mut out = Vec::new();
    for reg in chosen {
        let target = Target {
            browser: Some(reg.pid.to_string()),
            client: "waymark-host doctor".into(),
            probe: true,
        };
        let started = Instant::now();
        let result = tokio::time::timeout(PING_TIMEOUT, async {
            let mut conn = client::connect(env, &target).await?;
            match conn.call(BridgeCall::Ping).await {
                Ok(BridgeResult::Ok(_)) => Ok(started.elapsed()),
                Ok(BridgeResult::Failed(f)) => Err(BridgeError::Refused(f.message)),
                Err(e) => Err(BridgeError::Closed(e.to_string())),
            }
        })
        .await
        .unwrap_or_else(|_| {
            Err(BridgeError::Closed(format!(
                "the browser's host did not pass the ping on within {} s: its extension's \
                 service worker is not answering (reload the extension)",
                PING_TIMEOUT.as_secs()
            )))
        });
        out.push(Pinged { label: reg.label, result });
    }
    Ok(out)
}

/// The doctor's lines about external agents: what `waymark-host mcp` would find in this
/// same environment. Nothing registered and switched off are states, not faults (the user
/// may not use external agents); a registration whose browser is gone, an unsafe directory
/// or a failed ping are.
pub async fn checks(env: &(dyn Env + Sync)) -> Vec<Check> {
    match registry::runtime_dir(env).and_then(|dir| registry::private_dir(&dir).map(|()| dir)) {
        Ok(_) => {}
        Err(e) => return vec![Check::fix(format!("external agents: {e}"))],
    }
    let pinged = match ping_all(env, None).await {
        Ok(p) => p,
        Err(e @ (BridgeError::NotRegistered(_) | BridgeError::SwitchedOff(_))) => {
            return vec![Check::ok(format!("external agents: {e}"))];
        }
        Err(e) => return vec![Check::fix(format!("external agents: {e}"))],
    };
    pinged
        .into_iter()
        .map(|p| match p.result {
            Ok(rtt) => Check::ok(format!(
                "external agents: the bridge to “{}” answers end to end (ping through its \
                 extension in {:.1} ms)",
                p.label,
                rtt.as_secs_f64() * 1000.0
            )),
            Err(e) => {
                Check::fix(format!("external agents: the bridge to “{}” fails: {e}", p.label))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Vars(Vec<(&'static str, String)>);

    impl Env for Vars {
        fn var(&self, name: &str) -> Option<String> {
            self.0.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone())
        }
    }

    #[tokio::test]
    async fn no_browser_is_said_plainly_and_a_dead_registration_is_cleared() {
        let tmp = tempfile::tempdir().expect("tmp");
        let rt = tmp.path().join("rt");
        registry::private_dir(&rt).expect("runtime dir");
        let env = Vars(vec![
            (registry::ENV_RUNTIME_DIR, rt.display().to_string()),
            ("WAYMARK_CONFIG_DIR", tmp.path().join("cfg").display().to_string()),
        ]);
        let first = checks(&env).await;
        assert_eq!(first.len(), 1);
        assert!(first[0].ok && first[0].text.contains("no browser has registered"), "{first:?}");
        // A host that died left its files: they are removed, and it is not listed.
        let (sock, info) = registry::paths_for(&rt, 999_999_999, 1);
        std::fs::write(&sock, "").expect("sock");
        std::fs::write(&info, r#"{"pid":999999999,"label":"ghost"}"#).expect("info");
        let second = checks(&env).await;
        assert!(!second[0].ok && second[0].text.contains("“ghost”"), "{second:?}");
        assert!(!sock.exists() && !info.exists());
        assert!(Survey::take(&env).expect("list").live.is_empty());
    }
}
