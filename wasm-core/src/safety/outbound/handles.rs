//! Secrets as handles: the model never reads a secret's characters, only an opaque stand-in
//! (`⟨secret:3 api key from dash.example⟩`), so no channel a page makes it use (one character
//! per link, every other character, an invented alphabet) can carry what it never saw. It acts
//! with the handle; the worker puts the real value in only where that value may go.

use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;

/// How a handle starts: the model writes it back as it read it.
pub const HANDLE_OPEN: &str = "⟨secret:";

/// How a handle ends.
pub const HANDLE_CLOSE: char = '⟩';

/// The longest handle text read back (a kind and an origin label).
const MAX_HANDLE_CHARS: usize = 160;

/// What a secret is, for the model to know which handle to use where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SecretKind {
    /// An API key (`sk-…`, "API key …").
    ApiKey,
    /// An access token (`ghp_…`, "token …").
    Token,
    /// A password or passphrase.
    Password,
    /// A PIN.
    Pin,
    /// A one-time code.
    OneTimeCode,
    /// A code written in groups or after "code" (a setup key, a licence).
    Code,
    /// A card number.
    CardNumber,
    /// A card's security code.
    CardCode,
    /// An account number (IBAN, grouped digits that are no card).
    AccountNumber,
    /// An identity number.
    IdNumber,
    /// The value of a sensitive field (password, one-time code) on a page.
    FieldValue,
    /// A secret named no more precisely.
    Secret,
}

impl SecretKind {
    /// The kind a secret's name says (`password: …`, `PIN is …`).
    pub fn named(name: &str) -> Self {
        match name {
            "password" | "passwort" | "passcode" | "passphrase" | "pwd" | "pw" | "pass" => {
                Self::Password
            }
            "pin" => Self::Pin,
            "otp" => Self::OneTimeCode,
            "code" => Self::Code,
            "cvv" | "cvc" | "csc" => Self::CardCode,
            "ssn" => Self::IdNumber,
            "token" => Self::Token,
            "key" | "apikey" | "api-key" | "api_key" => Self::ApiKey,
            "iban" => Self::AccountNumber,
            "card" => Self::CardNumber,
            _ => Self::Secret,
        }
    }

    /// In words, as the handle shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ApiKey => "api key",
            Self::Token => "token",
            Self::Password => "password",
            Self::Pin => "PIN",
            Self::OneTimeCode => "one-time code",
            Self::Code => "code",
            Self::CardNumber => "card number",
            Self::CardCode => "card security code",
            Self::AccountNumber => "account number",
            Self::IdNumber => "identity number",
            Self::FieldValue => "sensitive field value",
            Self::Secret => "secret",
        }
    }
}

/// An opaque stand-in for one secret of a task: what the model reads and writes instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecretHandle {
    /// Its number in the task (from 1).
    pub id: u32,
    /// What it is.
    pub kind: SecretKind,
    /// Where it came from, in words (`dash.example`, `your task`).
    pub origin: String,
}

impl fmt::Display for SecretHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{HANDLE_OPEN}{} {} from {}{HANDLE_CLOSE}",
            self.id,
            self.kind.as_str(),
            self.origin
        )
    }
}

/// A secret's real value: never printed, compared only to itself.
#[derive(Clone)]
pub struct Concealed(SecretString);

impl Concealed {
    /// Wraps `value`.
    pub fn new(value: &str) -> Self {
        Self(SecretString::from(value.to_owned()))
    }

    /// The real value, for the one place that needs it (typing into an allowed field).
    pub fn expose(&self) -> &str {
        self.0.expose_secret()
    }
}

impl fmt::Debug for Concealed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[concealed]")
    }
}

impl PartialEq for Concealed {
    fn eq(&self, other: &Self) -> bool {
        self.expose() == other.expose()
    }
}

impl Eq for Concealed {}

/// Who can read what is typed into a field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Audience {
    /// The site and the signed-in user (a key field, a login, a settings form).
    Private,
    /// Other people: a post, a comment, a status, a review, a chat, a search that ends in an
    /// address. Why, in words.
    Public(String),
}

/// Why a handle was not turned into its value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandleRefusal {
    /// The model wrote a handle the task never gave it.
    #[error(
        "refused: {HANDLE_OPEN}{0}{HANDLE_CLOSE} is no secret of this task; use a handle exactly \
         as it was shown"
    )]
    Unknown(u32),
    /// The field is on a site the secret may not go to.
    #[error(
        "refused: {handle} may be typed only on {allowed}, and this field is on {destination}; \
         Waymark did not type it"
    )]
    Elsewhere {
        /// The handle.
        handle: SecretHandle,
        /// Where it may go, in words.
        allowed: String,
        /// The field's document origin.
        destination: String,
    },
    /// The field is one other people can read.
    #[error(
        "refused: {handle} is never typed where other people can read it ({why}); Waymark did \
         not type it"
    )]
    Public {
        /// The handle.
        handle: SecretHandle,
        /// Why the field is public.
        why: String,
    },
    /// A handle in an action that is no typing into a field.
    #[error("refused: {handle} can only be typed into a field (type); it is never put into {what}")]
    NotAField {
        /// The handle.
        handle: String,
        /// The kind of argument (an address, an option, keys).
        what: &'static str,
    },
}

/// The handles written in `text`: each one's byte range and number. A handle is read from its
/// opening to its closing bracket, or to the end of its number when the model left the rest out
/// (`⟨secret:3`).
pub fn handle_refs(text: &str) -> Vec<(Range<usize>, u32)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text.get(from..).and_then(|rest| rest.find(HANDLE_OPEN)) {
        let start = from + found;
        let after = start + HANDLE_OPEN.len();
        let rest = text.get(after..).unwrap_or_default();
        let digits = rest.char_indices().take_while(|(_, c)| c.is_ascii_digit()).count();
        let number = rest.get(..digits).and_then(|d| d.parse::<u32>().ok());
        let close = rest
            .char_indices()
            .take(MAX_HANDLE_CHARS)
            .find(|&(_, c)| c == HANDLE_CLOSE || c == '\n' || c == '⟨')
            .filter(|&(_, c)| c == HANDLE_CLOSE)
            .map(|(i, c)| after + i + c.len_utf8());
        let end = close.unwrap_or(after + digits);
        if let Some(id) = number {
            out.push((start..end, id));
        }
        from = end.max(after);
    }
    out
}

/// Whether `text` holds a handle.
pub fn has_handle(text: &str) -> bool {
    text.contains(HANDLE_OPEN)
}

/// Whether `text`, in any spelling the outbound check reads (as written, percent-encoded,
/// base64, hex, escapes), carries a handle's bracket: a handle spelled for a page to read.
pub fn spells_handle(text: &str) -> bool {
    super::spelling::Payload::texts(text).iter().any(|t| t.contains(['⟨', '⟩']))
}

/// Who can read a field, from the facts the content script reports about it: multi-line text
/// (`textarea`, an editable region) is what people publish, and a field whose name, form or
/// default button says post, comment, reply, status, review, message or share is read by
/// others; a search box puts its text into an address.
pub fn audience(target: &crate::safety::ActionTarget) -> Audience {
    const PUBLIC_WORDS: &[&str] = &[
        "post",
        "comment",
        "reply",
        "status",
        "publish",
        "share",
        "tweet",
        "review",
        "message",
        "chat",
        "bio",
        "caption",
        "guestbook",
    ];
    // A password field is a credential field (the policy hands it to the user), never read
    // by others.
    if target.input_type == "password" {
        return Audience::Private;
    }
    if target.tag == "textarea" || (target.tag != "input" && target.role == "textbox") {
        return Audience::Public(
            "a multi-line text area, where posts and messages are written".into(),
        );
    }
    if target.input_type == "search" || target.role == "searchbox" || target.role == "combobox" {
        return Audience::Public("a search box: its text goes into addresses and histories".into());
    }
    let form_path = target
        .form_action
        .as_deref()
        .and_then(|a| url::Url::parse(a).ok())
        .map(|u| u.path().to_owned())
        .unwrap_or_default();
    let said = [
        ("the field", target.name.as_str()),
        ("its form's button", target.default_button.as_str()),
        ("its form's address", form_path.as_str()),
    ];
    for (whose, text) in said {
        let lower = text.to_lowercase();
        let words = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty());
        for word in words {
            let stem = word.strip_suffix('s').unwrap_or(word);
            if let Some(public) = PUBLIC_WORDS.iter().find(|w| **w == stem || **w == word) {
                return Audience::Public(format!("{whose} says “{public}”"));
            }
        }
    }
    Audience::Private
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_read_back_whole_or_by_number() {
        let text =
            "key ⟨secret:3 api key from dash.example⟩ and ⟨secret:12 then ⟨secret:x⟩ “quoted”";
        let refs = handle_refs(text);
        let ids: Vec<u32> = refs.iter().map(|(_, id)| *id).collect();
        assert_eq!(ids, [3, 12]);
        assert_eq!(text.get(refs[0].0.clone()), Some("⟨secret:3 api key from dash.example⟩"));
        assert_eq!(text.get(refs[1].0.clone()), Some("⟨secret:12"));
        assert!(handle_refs("⟨secret:").is_empty());
        assert!(handle_refs("plain text “⟨⟩”").is_empty());
    }

    #[test]
    fn a_handle_shows_its_number_kind_and_origin() {
        let handle =
            SecretHandle { id: 3, kind: SecretKind::ApiKey, origin: "dash.example".into() };
        assert_eq!(handle.to_string(), "⟨secret:3 api key from dash.example⟩");
        assert_eq!(handle_refs(&handle.to_string())[0].1, 3);
    }

    #[test]
    fn a_concealed_value_never_prints() {
        let value = Concealed::new("sk-live-Zq8aXcanary42Lm9Tt");
        assert_eq!(format!("{value:?}"), "[concealed]");
        assert_eq!(value.expose(), "sk-live-Zq8aXcanary42Lm9Tt");
    }

    #[test]
    fn fields_other_people_read_are_public() {
        let field =
            |tag: &str, name: &str, button: &str, action: &str| crate::safety::ActionTarget {
                tag: tag.into(),
                role: if tag == "input" { "textbox".into() } else { String::new() },
                input_type: if tag == "input" { "text".into() } else { String::new() },
                name: name.into(),
                default_button: button.into(),
                form_action: Some(action.into()),
                ..Default::default()
            };
        let private = field("input", "API key", "Save key", "https://dash.example/settings/keys");
        assert_eq!(audience(&private), Audience::Private);
        for public in [
            field("textarea", "Notes", "Save", "https://dash.example/notes"),
            field("input", "What's your status?", "Save", "https://dash.example/me"),
            field("input", "Title", "Post", "https://forum.example/new"),
            field("input", "Name", "Save", "https://forum.example/comments/new"),
            field("input", "Nickname", "Send", "https://chat.example/messages"),
        ] {
            assert!(matches!(audience(&public), Audience::Public(_)), "{public:?}");
        }
        let search = crate::safety::ActionTarget {
            tag: "input".into(),
            input_type: "search".into(),
            ..Default::default()
        };
        assert!(matches!(audience(&search), Audience::Public(_)));
    }
}
