//! The roles the agent asks the LLM as: one list for the wire, the host's config, the agent
//! loop and the side panel, so a role cannot be spelt differently in two places.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A role the agent calls the LLM as. Each may have its own endpoint and model on the host
/// (`[roles.<role>]` in its config), falling back to the default `[llm]` one.
///
/// On the wire, in config files and as JSON map keys it is its lowercase name ([`Self::as_str`]);
/// input also accepts the American `summarizer`, any case and surrounding spaces, as the host
/// always has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
// Serialized by hand (below) as its lowercase name: the declaration says so too.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename_all = "lowercase"))]
pub enum LlmRole {
    /// Writes and revises the plan.
    Planner,
    /// Chooses the actions, step by step.
    Navigator,
    /// Checks a "done" claim against the page.
    Validator,
    /// Summarises a finished task for the session's memory.
    Summariser,
}

impl LlmRole {
    /// Every role, in the order the side panel lists them (also their sort order).
    pub const ALL: [Self; 4] = [Self::Planner, Self::Navigator, Self::Validator, Self::Summariser];

    /// The name on the wire and in config files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Planner => "planner",
            Self::Navigator => "navigator",
            Self::Validator => "validator",
            Self::Summariser => "summariser",
        }
    }

    /// The most tokens one reply of the role may take (`max_tokens`): what its longest useful
    /// answer needs, so a model that rambles costs no more than that. A navigator's reply may
    /// carry several actions with text to type; a validator's verdict is one short JSON object.
    pub fn max_output_tokens(self) -> u32 {
        match self {
            Self::Planner => 1024,
            Self::Navigator => 2048,
            Self::Validator => 400,
            Self::Summariser => 600,
        }
    }

    /// Reads a role name: its [`Self::as_str`] spelling or the alias `summarizer`, in any case,
    /// with surrounding spaces ignored; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let name = text.trim().to_ascii_lowercase();
        if name == "summarizer" {
            return Some(Self::Summariser);
        }
        Self::ALL.into_iter().find(|r| r.as_str() == name)
    }

    /// The role names, for messages (`planner, navigator, validator, summariser`).
    pub fn names() -> String {
        Self::ALL.map(Self::as_str).join(", ")
    }
}

impl fmt::Display for LlmRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not a role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRole(pub String);

impl fmt::Display for UnknownRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown role {:?}; use one of {}", self.0, LlmRole::names())
    }
}

impl std::error::Error for UnknownRole {}

impl FromStr for LlmRole {
    type Err = UnknownRole;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s).ok_or_else(|| UnknownRole(s.to_owned()))
    }
}

// By hand rather than derived so that the one spelling is `as_str`, input takes the alias and
// any case (config files written by people), and map keys (`roles` tables) work in JSON and TOML.
impl Serialize for LlmRole {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for LlmRole {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn names_round_trip_and_the_alias_is_accepted() {
        for role in LlmRole::ALL {
            assert_eq!(LlmRole::parse(role.as_str()), Some(role));
            let json = serde_json::to_value(role).expect("ser");
            assert_eq!(json, role.as_str());
            assert_eq!(serde_json::from_value::<LlmRole>(json).expect("de"), role);
        }
        assert_eq!(LlmRole::parse(" Summarizer "), Some(LlmRole::Summariser));
        let alias: LlmRole = serde_json::from_str(r#""summarizer""#).expect("alias");
        assert_eq!(alias, LlmRole::Summariser);
        let err = serde_json::from_str::<LlmRole>(r#""chef""#).expect_err("unknown");
        assert!(err.to_string().contains("unknown role \"chef\""), "{err}");
        assert_eq!(LlmRole::names(), "planner, navigator, validator, summariser");
    }

    #[test]
    fn roles_as_map_keys_serialise_as_their_names() {
        let map: BTreeMap<LlmRole, u8> = LlmRole::ALL.into_iter().zip(0..).collect();
        let json = serde_json::to_string(&map).expect("ser");
        assert_eq!(json, r#"{"planner":0,"navigator":1,"validator":2,"summariser":3}"#);
        let back: BTreeMap<LlmRole, u8> = serde_json::from_str(&json).expect("de");
        assert_eq!(back, map);
        let alias: BTreeMap<LlmRole, u8> =
            serde_json::from_str(r#"{"summarizer":1}"#).expect("alias key");
        assert_eq!(alias[&LlmRole::Summariser], 1);
    }
}
