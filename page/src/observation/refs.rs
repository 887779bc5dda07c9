//! Element refs: the handle the model uses to name an element of the latest observation.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// One element of one frame: `14` in the top frame, `f2:14` in frame 2 (Chrome's frame id).
///
/// Why a type: refs must say which frame's content script owns the element, and the model
/// writes them back as either a bare number (top frame, the common case) or `f2:14`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
// Serialized by hand (below): a number in the top document, `f<frame>:<index>` in a frame.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(type = "number | string"))]
pub struct Ref {
    /// Chrome's frame id; 0 is the tab's top document.
    pub frame: u32,
    /// 1-based index in that frame's latest observation.
    pub index: u32,
}

impl Ref {
    /// A ref in the top frame.
    pub const fn top(index: u32) -> Self {
        Self { frame: 0, index }
    }

    /// Parses `14`, `[14]`, `f2:14` or `[f2:14]`.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim().trim_start_matches('[').trim_end_matches(']').trim();
        match text.strip_prefix('f').and_then(|rest| rest.split_once(':')) {
            Some((frame, index)) => {
                Some(Self { frame: frame.parse().ok()?, index: index.parse().ok()? })
            }
            None => Some(Self::top(text.parse().ok()?)),
        }
    }
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.frame == 0 {
            write!(f, "{}", self.index)
        } else {
            write!(f, "f{}:{}", self.frame, self.index)
        }
    }
}

impl Serialize for Ref {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.frame == 0 { s.serialize_u32(self.index) } else { s.collect_str(self) }
    }
}

impl<'de> Deserialize<'de> for Ref {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(u64),
            Float(f64),
            Text(String),
        }
        let bad =
            || serde::de::Error::custom("a ref is a number like 14 or, in a frame, \"f2:14\"");
        match Raw::deserialize(d)? {
            Raw::Number(n) => u32::try_from(n).map(Self::top).map_err(|_| bad()),
            Raw::Float(x) if x.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&x) => {
                Ok(Self::top(x as u32))
            }
            Raw::Float(_) => Err(bad()),
            Raw::Text(t) => Self::parse(&t).ok_or_else(bad),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_refs_are_numbers_and_frame_refs_are_qualified() {
        assert_eq!(serde_json::to_string(&Ref::top(3)).ok().as_deref(), Some("3"));
        let framed = Ref { frame: 2, index: 14 };
        assert_eq!(serde_json::to_string(&framed).ok().as_deref(), Some("\"f2:14\""));
        assert_eq!(framed.to_string(), "f2:14");
    }

    #[test]
    fn parses_what_models_write() {
        for (text, want) in [
            ("3", Ref::top(3)),
            ("\"[3]\"", Ref::top(3)),
            ("\"f2:14\"", Ref { frame: 2, index: 14 }),
            ("3.0", Ref::top(3)),
        ] {
            assert_eq!(serde_json::from_str::<Ref>(text).ok(), Some(want), "{text}");
        }
        for bad in ["-1", "\"x\"", "\"f:1\"", "2.5", "null"] {
            assert!(serde_json::from_str::<Ref>(bad).is_err(), "{bad}");
        }
    }
}
