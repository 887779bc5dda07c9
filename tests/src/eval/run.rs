//! Running tasks: each in a fresh tab, under its step and time budgets, answering the cards a
//! user would (approve what the task asked for; a take-over cannot be done unattended), and
//! reading the outcome from the task's own check.

use super::miniwob::{self, Episode};
use super::oracle::OracleSlot;
use super::report::TaskResult;
use super::stack::{CardView, Stack, TaskState};
use super::task::{Budget, ByHand, Check, EvalTask, Prompt, mentions, request_fields};
use crate::fixture_server::FixtureServer;
use anyhow::{Context, Result};
use std::time::{Duration, Instant};
use waymark_core::agent::{OutputMode, Reply};
use waymark_core::panel::PanelRequest;

/// How often the harness reads the panel state while a task runs.
const POLL: Duration = Duration::from_millis(150);
/// After the time budget's stop, how long the task gets to wind down before it is abandoned.
const STOP_GRACE: Duration = Duration::from_secs(60);

/// What one task run needs besides the stack.
pub struct TaskEnv<'a> {
    /// The site serving the task's pages.
    pub site: &'a FixtureServer,
    /// The oracle slot, when the endpoint is the oracle's scripted server.
    pub oracle: Option<&'a OracleSlot>,
    /// Budgets.
    pub budget: Budget,
    /// Run number (1-based): part of MiniWoB's seed.
    pub run: u32,
    /// Prefix of the progress lines (`[2/7 run 1]`).
    pub label: String,
}

/// Runs `task` on `stack` and judges it.
pub fn run_task(stack: &Stack, task: &EvalTask, env: &TaskEnv<'_>) -> Result<TaskResult> {
    let tab = stack.open_tab(&env.site.url(&task.start))?;
    let prompt = match &task.prompt {
        Prompt::Fixed(words) => words.clone(),
        Prompt::FromPage => {
            let seed = format!("{}-{}", task.id, env.run);
            let limit = u64::try_from(env.budget.time.as_millis()).unwrap_or(u64::MAX);
            let js = miniwob::start_episode_js(&seed, limit);
            let utterance = tab.eval(&js).context("starting the MiniWoB episode")?;
            utterance.as_str().unwrap_or_default().to_owned()
        }
    };
    if let (Some(slot), Some(oracle)) = (env.oracle, oracle_for(task)) {
        slot.set(oracle);
    }
    let requests_before = env.site.requests().len();
    let turns_before = stack.state()?.turns;
    let resources = task
        .resources
        .iter()
        .map(|(name, path)| (name.clone(), path.display().to_string()))
        .collect();
    let started = Instant::now();
    stack.send(&PanelRequest::StartTask {
        prompt: prompt.clone(),
        mode: OutputMode::Default,
        max_steps: Some(env.budget.steps),
        step_mode: false,
        resources,
    })?;
    let mut watch = Watch::default();
    let ended: TaskState = loop {
        let state = stack.state()?;
        let elapsed = started.elapsed();
        let current = state.task.filter(|t| t.prompt == prompt);
        if let Some(t) = &current {
            watch.progress(&env.label, &task.id, t);
            if !t.running && t.answer.is_some() && state.turns > turns_before {
                break t.clone();
            }
            if t.running
                && let Some(card) = t.controls.card.clone()
            {
                watch.answer_card(stack, card, task.by_hand.map(|b| (&tab, b, prompt.as_str())))?;
            }
        }
        if watch.episode.is_none() && task.check == Check::Reward {
            watch.episode = episode(&tab);
            if watch.episode.is_some() && !watch.stopped {
                // The page ended the episode: the environment is done, as in MiniWoB's own.
                stack.send(&PanelRequest::Stop)?;
                watch.stopped = true;
            }
        }
        if elapsed > env.budget.time && !watch.stopped {
            watch.over_time = true;
            watch.stopped = true;
            stack.send(&PanelRequest::Stop)?;
        }
        if elapsed > env.budget.time + STOP_GRACE {
            watch.abandoned = true;
            break current.unwrap_or_default();
        }
        std::thread::sleep(POLL);
    };
    let wall = started.elapsed();
    if watch.episode.is_none() && task.check == Check::Reward {
        watch.episode = episode(&tab);
    }
    let answer = ended.answer.clone().unwrap_or_default();
    let received = env.site.requests().split_off(requests_before.min(env.site.requests().len()));
    let verdict = judge(&task.check, &answer, &received, watch.episode.as_ref())
        .and_then(|()| gave_up_honestly(&task.check, ended.success));
    #[allow(clippy::let_underscore_must_use, reason = "a tab already gone needs no closing")]
    let _ = stack.browser.close_target(tab.target_id());
    let failure = match &verdict {
        Ok(()) => None,
        Err(why) => Some(failure_reason(why, &ended, &watch, env.budget)),
    };
    Ok(TaskResult {
        suite: task.suite.as_str().to_owned(),
        task: task.id.clone(),
        run: env.run,
        success: verdict.is_ok(),
        steps: ended.step,
        actions: u32::try_from(ended.steps.len()).unwrap_or(u32::MAX),
        usage: ended.usage,
        wall_s: wall.as_secs_f64(),
        heading: ended.heading.clone(),
        agent_success: ended.success,
        approvals: watch.approvals,
        by_hand: watch.by_hand,
        answer,
        failure,
        known_failure: task.known_failure.map(str::to_owned),
        false_success: super::report::false_success(
            verdict.is_ok(),
            ended.success,
            ended.steps.last().map(|s| s.ok && s.error.is_none()),
        ),
        timeline: ended
            .steps
            .iter()
            .map(|s| match &s.error {
                None => s.text.clone(),
                Some(e) => format!("{} — failed: {e}", s.text),
            })
            .collect(),
    })
}

fn oracle_for(task: &EvalTask) -> Option<Box<dyn super::oracle::Oracle>> {
    match task.suite {
        super::task::SuiteName::Sites => super::sites::oracle(&task.id),
        super::task::SuiteName::MiniWob => miniwob::oracle(&task.id),
        super::task::SuiteName::Widgets => super::widgets::oracle(&task.id),
        super::task::SuiteName::Libs => super::libs::oracle(&task.id),
    }
}

/// Does by hand, in the tab, what the task says the user does at a take-over card: as a
/// person would, with the keyboard (trusted input events from the browser).
fn do_by_hand(tab: &crate::chromium::Page, by_hand: ByHand, prompt: &str) -> Result<()> {
    match by_hand {
        ByHand::TypePassword => {
            let password = super::oracle::all_quoted(prompt)
                .pop()
                .context("the task names no password to type")?;
            let count = tab
                .eval("document.querySelectorAll('input[type=password]').length")?
                .as_u64()
                .unwrap_or(0);
            for i in 0..count {
                let focus = format!(
                    "(() => {{ const f = document.querySelectorAll('input[type=password]')[{i}];                      if (f.value !== '') return false; f.focus(); return true; }})()"
                );
                if tab.eval(&focus)?.as_bool() == Some(true) {
                    tab.call("Input.insertText", serde_json::json!({ "text": password }))?;
                }
            }
            Ok(())
        }
    }
}

/// The episode's end as the MiniWoB page recorded it.
fn episode(tab: &crate::chromium::Page) -> Option<Episode> {
    let text = tab.eval(miniwob::EPISODE_JS).ok()?;
    serde_json::from_str::<Option<Episode>>(text.as_str()?).ok().flatten()
}

/// What the harness saw while the task ran.
#[derive(Default)]
struct Watch {
    last_step: u32,
    last_actions: usize,
    answered: Vec<CardView>,
    approvals: u32,
    /// Take-overs the harness did by hand, as the task says the user would.
    by_hand: u32,
    stopped: bool,
    over_time: bool,
    abandoned: bool,
    handed_over: Option<String>,
    episode: Option<Episode>,
}

impl Watch {
    /// One progress line per new step or action.
    fn progress(&mut self, label: &str, id: &str, t: &TaskState) {
        if t.step != self.last_step || t.steps.len() != self.last_actions {
            self.last_step = t.step;
            self.last_actions = t.steps.len();
            let action = t.steps.last().map_or(String::new(), |s| {
                let ok = if s.ok { "" } else { " (failed)" };
                format!(" · {}{ok}", s.text)
            });
            eprintln!("{label} {id}: step {}{action}", t.step);
        }
    }

    /// Answers a card once: approves a confirmation (the task asked for that action); at a
    /// take-over does what the task says the user does by hand and continues, or stops when it
    /// says nothing (nobody is there to do it); continues otherwise.
    fn answer_card(
        &mut self,
        stack: &Stack,
        card: CardView,
        by_hand: Option<(&crate::chromium::Page, ByHand, &str)>,
    ) -> Result<()> {
        if self.answered.contains(&card) {
            return Ok(());
        }
        let reply = match (card.kind.as_str(), by_hand) {
            ("confirm", _) => {
                self.approvals += 1;
                Reply { approve: true, ..Reply::default() }
            }
            ("take_over", Some((tab, what, prompt))) => {
                do_by_hand(tab, what, prompt)?;
                self.by_hand += 1;
                Reply::proceed()
            }
            ("take_over", None) => {
                self.handed_over = Some(card.message.clone());
                self.stopped = true;
                Reply::stop()
            }
            _ => Reply::proceed(),
        };
        eprintln!(
            "    card ({}): {} → {}",
            card.kind,
            card.title,
            if reply.stop {
                "stop"
            } else if reply.approve {
                "approve"
            } else {
                "continue"
            }
        );
        self.answered.push(card);
        stack.send(&PanelRequest::AnswerIntervention { reply })
    }
}

/// Whether `check` holds; `Err` says what is missing.
pub fn judge(
    check: &Check,
    answer: &str,
    received: &[crate::fixture_server::FixtureRequest],
    episode: Option<&Episode>,
) -> Result<(), String> {
    match check {
        Check::Sent { path, fields } => {
            let to_path: Vec<_> = received.iter().filter(|r| r.path == *path).collect();
            if to_path.is_empty() {
                return Err(format!("the site received nothing at {path}"));
            }
            let best = to_path
                .iter()
                .map(|r| {
                    let got = request_fields(&r.body, r.query.as_deref());
                    let missing: Vec<String> = fields
                        .iter()
                        .filter(|(k, v)| !got.iter().any(|(gk, gv)| gk == k && mentions(gv, v)))
                        .map(|(k, v)| {
                            let had = got.iter().find(|(gk, _)| gk == k).map(|(_, gv)| gv.as_str());
                            format!("{k}={v:?} (sent {had:?})")
                        })
                        .collect();
                    missing
                })
                .min_by_key(Vec::len)
                .unwrap_or_default();
            if best.is_empty() {
                Ok(())
            } else {
                Err(format!("{path} did not receive {}", best.join(", ")))
            }
        }
        Check::Received { path, contains } => {
            let bodies: Vec<&str> =
                received.iter().filter(|r| r.path == *path).map(|r| r.body.as_str()).collect();
            if bodies.is_empty() {
                return Err(format!("the site received nothing at {path}"));
            }
            match contains.iter().find(|c| !bodies.iter().any(|b| b.contains(c.as_str()))) {
                None => Ok(()),
                Some(c) => Err(format!("{path} received no body containing {c:?}")),
            }
        }
        Check::Answer(words) => {
            let missing: Vec<&str> =
                words.iter().filter(|w| !mentions(answer, w)).map(String::as_str).collect();
            if missing.is_empty() {
                Ok(())
            } else {
                Err(format!("the answer lacks {}", missing.join(", ")))
            }
        }
        Check::Reward => match episode {
            Some(e) if e.reward > 0.0 => Ok(()),
            Some(e) => Err(format!(
                "the page ended the episode with reward {}{}",
                e.reward,
                if e.reason.is_empty() { String::new() } else { format!(" ({})", e.reason) }
            )),
            None => Err("the episode never ended".into()),
        },
        Check::GaveUp(words) => {
            let missing: Vec<&str> =
                words.iter().filter(|w| !mentions(answer, w)).map(String::as_str).collect();
            if missing.is_empty() {
                Ok(())
            } else {
                Err(format!(
                    "the answer does not say why it cannot be done ({})",
                    missing.join(", ")
                ))
            }
        }
        Check::All(checks) => checks.iter().try_for_each(|c| judge(c, answer, received, episode)),
    }
}

/// A task that cannot be done succeeds only when the agent did not claim success.
fn gave_up_honestly(check: &Check, claimed: bool) -> Result<(), String> {
    match check {
        Check::GaveUp(_) if claimed => {
            Err("the agent claimed success on a task that cannot be done here".into())
        }
        _ => Ok(()),
    }
}

/// The reason a failed task gives in the report: the check's words, then how the task ended.
fn failure_reason(why: &str, t: &TaskState, watch: &Watch, budget: Budget) -> String {
    let mut out = why.to_owned();
    if watch.abandoned {
        out.push_str(&format!("; the task did not end within {:?} of its stop", STOP_GRACE));
    } else if watch.over_time {
        out.push_str(&format!("; stopped at the time budget ({} s)", budget.time.as_secs()));
    } else if let Some(message) = &watch.handed_over {
        out.push_str(&format!("; the agent asked the user to take over: {message}"));
    } else if t.step >= budget.steps && !t.success {
        out.push_str(&format!("; step budget ({}) used", budget.steps));
    }
    if let Some(e) = &t.error {
        out.push_str(&format!("; agent error: {e}"));
    } else if !t.heading.is_empty() {
        out.push_str(&format!("; {}", t.heading));
    }
    if let Some(answer) = t.answer.as_deref().filter(|a| a.starts_with("Oracle cannot go on")) {
        out.push_str(&format!("; {answer}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture_server::FixtureRequest;

    fn post(path: &str, body: &str) -> FixtureRequest {
        FixtureRequest {
            method: "POST".into(),
            path: path.into(),
            query: None,
            headers: vec![],
            body: body.into(),
        }
    }

    #[test]
    fn checks_read_what_the_site_received_the_answer_and_the_reward() {
        let sent = Check::Sent {
            path: "/api/message".into(),
            fields: vec![
                ("recipient".into(), "E-2044".into()),
                ("body".into(), "24 december".into()),
            ],
        };
        let good = post("/api/message", "recipient=E-2044&body=Closed+on+24+December.");
        assert_eq!(judge(&sent, "", &[good], None), Ok(()));
        let wrong = post("/api/message", "recipient=E-2090&body=Closed+on+24+December.");
        let why = judge(&sent, "", &[wrong], None).expect_err("wrong recipient");
        assert!(why.contains("recipient=\"E-2044\" (sent Some(\"E-2090\"))"), "{why}");
        let elsewhere = judge(&sent, "", &[post("/api/other", "")], None).expect_err("no request");
        assert!(elsewhere.contains("received nothing at /api/message"), "{elsewhere}");

        let received = Check::Received { path: "/u".into(), contains: vec!["EVAL-1".into()] };
        assert!(judge(&received, "", &[post("/u", "--b\r\nEVAL-1\r\n")], None).is_ok());
        assert!(judge(&received, "", &[post("/u", "other")], None).is_err());

        let answer = Check::Answer(vec!["Steelbrew".into(), "34.50".into()]);
        assert!(judge(&answer, "It is steelbrew kettle at $34.50.", &[], None).is_ok());
        assert_eq!(judge(&answer, "Steelbrew", &[], None), Err("the answer lacks 34.50".into()));

        let won = Episode { reward: 0.8, reason: String::new() };
        let lost = Episode { reward: -1.0, reason: "timed out".into() };
        assert!(judge(&Check::Reward, "", &[], Some(&won)).is_ok());
        assert_eq!(
            judge(&Check::Reward, "", &[], Some(&lost)),
            Err("the page ended the episode with reward -1 (timed out)".into())
        );
        assert!(judge(&Check::Reward, "", &[], None).is_err());
        assert!(
            judge(&Check::All(vec![answer, Check::Reward]), "Steelbrew 34.50", &[], None).is_err()
        );
    }
}
