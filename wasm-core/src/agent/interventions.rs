//! Interventions: moments the agent stops and asks the user, shown as cards in the side panel.

use serde::{Deserialize, Serialize};

/// Upper bound on upfront questions: more than three is an interview, not a clarification.
pub const MAX_UPFRONT_QUESTIONS: usize = 3;

/// A stated confidence below this is a doubt worth showing: the model itself rates the step
/// closer to a coin flip than to a sure thing.
pub const LOW_CONFIDENCE: f64 = 0.5;

/// Words that mark a hedged self-evaluation (matched as whole words, case-insensitive).
const HEDGES: &[&str] = &[
    "unsure",
    "not sure",
    "uncertain",
    "might",
    "maybe",
    "perhaps",
    "could be",
    "possibly",
    "not certain",
    "unclear",
    "i think",
    "i guess",
];

/// Why the agent needs the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum InterventionKind {
    /// Ambiguities found in the task before the first step.
    Questions,
    /// The plan moved to a new phase: a progress summary, continue or adjust?
    Checkpoint,
    /// The model doubts its own progress.
    Confidence,
    /// A sub-goal is done: what next?
    SubGoalComplete,
    /// The agent is going round in circles.
    Stuck,
    /// A risky action (money, a message, a deletion, an account change, a form sent to another
    /// site, a new site or another site's frame, a download, an upload) waits for the user's
    /// explicit approval; denying it refuses the action.
    Confirm,
    /// Something the agent never does itself (credentials, one-time codes, payment fields,
    /// CAPTCHAs, consent, recovery settings): the user does it, then continues.
    TakeOver,
}

/// One card in the side panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Intervention {
    /// What kind of card.
    pub kind: InterventionKind,
    /// Its heading.
    pub title: String,
    /// What the agent has to say (summary, doubt, reason).
    pub message: String,
    /// Numbered questions (upfront questions only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<String>,
    /// On a confirmation card that may offer it: the words of the panel's "allow this kind of
    /// action on this site for the rest of the task" button (the policy decides; the panel only
    /// shows the button when this is set). Never set for money, deletion, account settings,
    /// downloads, uploads or take-overs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_similar: Option<String>,
}

/// The user's answer to a card.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Reply {
    /// Free text (answers, or how to adjust); empty means "continue as you were".
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub text: String,
    /// Stop the task.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub stop: bool,
    /// Approve the action on a [`InterventionKind::Confirm`] card. Only the panel's Approve
    /// button sets it: an empty or missing answer never approves.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub approve: bool,
    /// With `approve`: also allow this kind of action on this site without a card for the rest
    /// of the task. Only the panel's button for it sets it, and only a card that offered it
    /// ([`Intervention::allow_similar`]) honours it.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(as = "Option<_>", optional))]
    pub allow_similar: bool,
}

impl Reply {
    /// Continue without changes.
    pub fn proceed() -> Self {
        Self::default()
    }

    /// Stop the task.
    pub fn stop() -> Self {
        Self { stop: true, ..Self::default() }
    }

    /// Approve the action on a confirmation card.
    pub fn approve() -> Self {
        Self { approve: true, ..Self::default() }
    }

    /// Approve, and allow this kind of action on this site for the rest of the task.
    pub fn approve_similar() -> Self {
        Self { approve: true, allow_similar: true, ..Self::default() }
    }
}

/// Which interventions and attention signals the user wants; each can be switched off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(default)]
pub struct InterventionSettings {
    /// Ask upfront questions.
    pub questions: bool,
    /// Checkpoint on plan phase changes.
    pub checkpoint: bool,
    /// Show hedged self-evaluations.
    pub confidence: bool,
    /// Pause when a sub-goal is done.
    pub sub_goal: bool,
    /// Badge on the toolbar icon.
    pub badge: bool,
    /// System notification.
    pub notification: bool,
    /// Short sound.
    pub sound: bool,
}

impl Default for InterventionSettings {
    fn default() -> Self {
        Self {
            questions: true,
            checkpoint: true,
            confidence: true,
            sub_goal: true,
            badge: true,
            notification: true,
            sound: true,
        }
    }
}

impl InterventionSettings {
    /// Whether cards of this kind are shown (being stuck always asks: the alternative is a
    /// silent loop that costs money).
    pub fn allows(&self, kind: InterventionKind) -> bool {
        match kind {
            InterventionKind::Questions => self.questions,
            InterventionKind::Checkpoint => self.checkpoint,
            InterventionKind::Confidence => self.confidence,
            InterventionKind::SubGoalComplete => self.sub_goal,
            // Safety cards cannot be switched off: without them the action is never done.
            InterventionKind::Stuck | InterventionKind::Confirm | InterventionKind::TakeOver => {
                true
            }
        }
    }
}

/// How to get the user's attention when a card opens (or let go of it when it closes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attention {
    /// Text of the toolbar badge; `Some("")` clears it, `None` leaves it alone.
    pub badge: Option<String>,
    /// A system notification: title and message.
    pub notification: Option<(String, String)>,
    /// Play the short sound.
    pub sound: bool,
}

/// The signals for a card that just opened (`Some`) or closed (`None`), per the settings.
pub fn attention(settings: &InterventionSettings, opened: Option<&Intervention>) -> Attention {
    match opened {
        Some(card) => Attention {
            badge: settings.badge.then(|| "!".to_owned()),
            notification: settings.notification.then(|| {
                let first = card.questions.first().map_or(card.message.as_str(), String::as_str);
                (format!("Waymark: {}", card.title), first.lines().next().unwrap_or("").to_owned())
            }),
            sound: settings.sound,
        },
        None => {
            Attention { badge: settings.badge.then(String::new), notification: None, sound: false }
        }
    }
}

/// The model's own account of its progress, reported with its actions (`progress` tool).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProgressReport {
    /// How the previous step went, in the model's words.
    pub evaluation: String,
    /// Stated confidence, 0–1.
    pub confidence: Option<f64>,
    /// The plan phase it is in now (searching, comparing, submitting…).
    pub phase: Option<String>,
    /// A sub-goal it just completed, summarised.
    pub sub_goal_done: Option<String>,
    /// What it keeps of the last step's output for later steps (shown there as `kept:`).
    pub memory: Option<String>,
}

impl ProgressReport {
    /// Why the model's self-evaluation is a doubt, if it is one.
    pub fn doubt(&self) -> Option<String> {
        if let Some(c) = self.confidence
            && c < LOW_CONFIDENCE
        {
            return Some(format!("confidence {:.0}%: {}", c * 100.0, self.evaluation));
        }
        hedges(&self.evaluation).then(|| self.evaluation.clone())
    }
}

/// Whether `text` hedges ("unsure", "might", "could be"…), by whole words.
pub fn hedges(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let joined = format!(" {} ", words.join(" "));
    HEDGES.iter().any(|h| joined.contains(&format!(" {h} ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hedging_is_found_by_whole_words() {
        assert!(hedges("I'm unsure this is the right flight"));
        assert!(hedges("It could be the second result."));
        assert!(hedges("This MIGHT be it"));
        assert!(!hedges("Mighty fine: the form was saved"));
        assert!(!hedges("Saved the name."));
    }

    #[test]
    fn low_stated_confidence_is_a_doubt() {
        let r = ProgressReport {
            evaluation: "found it".into(),
            confidence: Some(0.3),
            ..Default::default()
        };
        assert!(r.doubt().is_some_and(|d| d.contains("30%")));
        let sure = ProgressReport {
            evaluation: "found it".into(),
            confidence: Some(0.9),
            ..Default::default()
        };
        assert_eq!(sure.doubt(), None);
    }

    #[test]
    fn attention_follows_the_settings() {
        let card = Intervention {
            kind: InterventionKind::Questions,
            title: "Before I start".into(),
            message: "Some things are ambiguous:".into(),
            questions: vec!["Which date?".into()],
            allow_similar: None,
        };
        let all = attention(&InterventionSettings::default(), Some(&card));
        assert_eq!(all.badge.as_deref(), Some("!"));
        assert_eq!(
            all.notification,
            Some(("Waymark: Before I start".into(), "Which date?".into()))
        );
        assert!(all.sound);
        let quiet = InterventionSettings {
            badge: false,
            notification: false,
            sound: false,
            ..Default::default()
        };
        assert_eq!(
            attention(&quiet, Some(&card)),
            Attention { badge: None, notification: None, sound: false }
        );
        assert_eq!(attention(&InterventionSettings::default(), None).badge.as_deref(), Some(""));
    }

    #[test]
    fn each_kind_can_be_switched_off_but_stuck_always_asks() {
        let off = InterventionSettings {
            questions: false,
            checkpoint: false,
            confidence: false,
            sub_goal: false,
            ..Default::default()
        };
        assert!(!off.allows(InterventionKind::Questions));
        assert!(!off.allows(InterventionKind::Checkpoint));
        assert!(!off.allows(InterventionKind::Confidence));
        assert!(!off.allows(InterventionKind::SubGoalComplete));
        assert!(off.allows(InterventionKind::Stuck));
        assert!(off.allows(InterventionKind::Confirm));
        assert!(off.allows(InterventionKind::TakeOver));
    }

    #[test]
    fn an_empty_or_plain_answer_never_approves() {
        let empty: Reply = serde_json::from_str("{}").expect("reply");
        assert!(!empty.approve);
        let text: Reply = serde_json::from_str(r#"{"text":"yes, approve"}"#).expect("reply");
        assert!(!text.approve);
        assert!(!Reply::proceed().approve);
        assert!(Reply::approve().approve);
        assert!(!empty.allow_similar && !Reply::approve().allow_similar);
        let similar: Reply =
            serde_json::from_str(r#"{"approve":true,"allow_similar":true}"#).expect("reply");
        assert_eq!(similar, Reply::approve_similar());
    }
}
