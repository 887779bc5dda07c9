//! The user's cap on one reply's length (`max_tokens`), set per role in the host's settings.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

/// A configured output-token limit: a whole number within [`MaxTokens::MIN`]..=[`MaxTokens::MAX`],
/// so a typo cannot make every reply one token long or ask a model for more than any serves.
/// It replaces the role's own default ([`crate::LlmRole::max_output_tokens`]) on every call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MaxTokens(u32);

/// A number outside [`MaxTokens::MIN`]..=[`MaxTokens::MAX`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaxTokensOutOfRange(pub u64);

impl fmt::Display for MaxTokensOutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is not between {} and {} tokens", self.0, MaxTokens::MIN, MaxTokens::MAX)
    }
}

impl std::error::Error for MaxTokensOutOfRange {}

impl MaxTokens {
    /// The smallest limit: below it even a short JSON verdict is cut off.
    pub const MIN: u32 = 16;
    /// The largest limit: more than any role's useful answer, and what large models accept.
    pub const MAX: u32 = 32_768;

    /// `n` as a limit, when it is within the bounds.
    pub fn new(n: u64) -> Result<Self, MaxTokensOutOfRange> {
        u32::try_from(n)
            .ok()
            .filter(|n| (Self::MIN..=Self::MAX).contains(n))
            .map(Self)
            .ok_or(MaxTokensOutOfRange(n))
    }

    /// The number of tokens.
    pub fn get(self) -> u32 {
        self.0
    }
}

impl fmt::Display for MaxTokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

// By hand so that a config file or a reply with a number out of bounds fails to load.
impl<'de> Deserialize<'de> for MaxTokens {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Self::new(u64::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LlmRole;

    #[test]
    fn bounds_are_checked_and_role_defaults_fit() {
        assert_eq!(MaxTokens::new(16).map(MaxTokens::get), Ok(16));
        assert_eq!(MaxTokens::new(32_768).map(MaxTokens::get), Ok(32_768));
        assert_eq!(MaxTokens::new(15), Err(MaxTokensOutOfRange(15)));
        assert_eq!(MaxTokens::new(32_769), Err(MaxTokensOutOfRange(32_769)));
        assert_eq!(MaxTokens::new(u64::MAX), Err(MaxTokensOutOfRange(u64::MAX)));
        for role in LlmRole::ALL {
            assert!(MaxTokens::new(u64::from(role.max_output_tokens())).is_ok(), "{role}");
        }
        assert_eq!(MaxTokensOutOfRange(9).to_string(), "9 is not between 16 and 32768 tokens");
    }

    #[test]
    fn serde_is_a_plain_number_checked_on_reading() {
        let n = MaxTokens::new(500).expect("in range");
        assert_eq!(serde_json::to_string(&n).expect("ser"), "500");
        assert_eq!(serde_json::from_str::<MaxTokens>("500").expect("de"), n);
        let err = serde_json::from_str::<MaxTokens>("8").expect_err("too small");
        assert!(err.to_string().contains("8 is not between 16 and 32768"), "{err}");
        assert!(serde_json::from_str::<MaxTokens>("-1").is_err());
    }
}
