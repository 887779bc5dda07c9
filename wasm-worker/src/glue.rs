//! What the worker's `#[wasm_bindgen]` exports throw to the JS glue: a JS `Error` whose `name`
//! is the kind ([`waymark_page::NamedError`]), so a caller (the glue, a test over CDP) tells a
//! bad request from a closed tab without reading the message.

use waymark_page::{NamedError, PageError};

/// An export's failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    /// The glue passed something the export cannot read.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// The page call failed; its kind is the name.
    #[error(transparent)]
    Page(#[from] PageError),
    /// The reply could not be encoded for the glue (a bug: replies are plain data).
    #[error("the reply could not be encoded: {0}")]
    EncodeFailed(String),
}

impl NamedError for ExportError {
    fn name(&self) -> &'static str {
        match self {
            Self::BadRequest(_) => "BadRequest",
            Self::Page(page) => page.name(),
            Self::EncodeFailed(_) => "EncodeFailed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_error_keeps_its_own_kind_through_an_export() {
        let closed = PageError::TabClosed { tab: 3, during: String::new() };
        let e = ExportError::from(closed.clone());
        assert_eq!(e.name(), "TabClosed");
        assert_eq!(e.to_string(), closed.to_string());
        assert_eq!(ExportError::BadRequest("op".into()).name(), "BadRequest");
        assert_eq!(ExportError::EncodeFailed("x".into()).name(), "EncodeFailed");
    }
}
