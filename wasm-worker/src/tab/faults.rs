//! The tab's fault handling and uploads: a resource file put into a file input, the tab closed
//! under the agent, a wait that spans a navigation. Kept apart from `tab.rs`'s main paths.

use super::{ChromeTab, TabPage};
use waymark_core::agent::PageError;
use waymark_page::action::{ActionOutcome, ContentRequest};

impl TabPage {
    /// The same tab, able to upload the task's resource files.
    pub fn with_uploads(self, uploads: crate::upload::Uploads) -> Self {
        Self { uploads: Some(uploads), ..self }
    }

    /// Reads an attached resource through the host and puts it into the file input `r`.
    pub(super) async fn upload(
        &self,
        r: waymark_page::observation::Ref,
        file: &str,
    ) -> Result<ActionOutcome, PageError> {
        let fetched = match &self.uploads {
            Some(uploads) => uploads.fetch(file).await,
            None => Err(waymark_core::upload::UploadError::NothingAttached {
                requested: file.to_owned(),
            }),
        };
        let prepared = match fetched {
            Ok(prepared) => prepared,
            Err(e) => return Ok(ActionOutcome::failed(e.to_string())),
        };
        let (name, bytes) = (prepared.name.clone(), prepared.bytes);
        let request = ContentRequest::SetFile {
            ref_id: r,
            name: prepared.name,
            mime: prepared.mime,
            base64: prepared.base64,
        };
        let outcome: ActionOutcome = self.content(r.frame, &request).await?;
        if !outcome.ok {
            return Ok(outcome);
        }
        Ok(ActionOutcome { text: Some(format!("uploaded {name} ({bytes} bytes)")), ..outcome })
    }

    /// A wait can span a navigation (the user's, or the page's own): say so, so the model
    /// knows its refs are stale and the rest of its batch is dropped.
    pub(super) async fn note_navigation(&self, before: &ChromeTab, outcome: &mut ActionOutcome) {
        let Ok(now) = self.tab(self.tab_id()).await else { return };
        if now.url == before.url {
            return;
        }
        outcome.navigated = true;
        let note = format!("the page changed to {} during the wait", now.url);
        match (&mut outcome.error, &mut outcome.text) {
            (Some(error), _) => *error = format!("{error} ({note})"),
            (None, Some(text)) => *text = format!("{text}; {note}"),
            (None, text) => *text = Some(note),
        }
    }

    /// What a failed page call means for the task, from the tab's state (never from the
    /// words of Chrome's error): the tab is gone ([`PageError::TabClosed`], noticed `during`
    /// something), or the browser does not let extensions into the page it now shows
    /// ([`PageError::NoAccess`]); else the error as it was.
    pub(super) async fn diagnose(&self, error: PageError, during: &str) -> PageError {
        let id = self.tab_id();
        let Ok(tab) = self.tab(id).await else {
            return PageError::TabClosed { tab: id, during: during.to_owned() };
        };
        match error {
            PageError::InjectionFailed(_) if !waymark_core::tabs::scriptable(&tab.url) => {
                PageError::NoAccess { url: tab.url }
            }
            other => other,
        }
    }
}
