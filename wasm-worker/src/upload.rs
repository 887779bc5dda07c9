//! Fetching an upload resource's bytes from the native host (`file.read`, streamed as
//! `file.chunk` events); which resource and how much are decided in [`waymark_core::upload`].

use super::host_port::{HostClient, Reconnecting};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use waymark_core::host_retry::with_reconnect;
use waymark_core::upload::{
    FileAssembler, MAX_UPLOAD_BYTES, PreparedFile, UploadError, resolve_resource,
};
use waymark_protocol::{ErrorBody, FileInfo, FileRead, HostEvent};

/// The files a task may upload and the host that reads them.
pub struct Uploads {
    /// Name → path on the user's disk, as attached to the task.
    pub resources: BTreeMap<String, String>,
    /// The native host.
    pub host: Rc<HostClient>,
}

impl Uploads {
    /// Resolves `requested` among the attached resources and reads it through the host (again,
    /// on a new host process, if the host goes away while reading).
    pub async fn fetch(&self, requested: &str) -> Result<PreparedFile, UploadError> {
        let (name, path) = resolve_resource(&self.resources, requested)?;
        let what = format!("reading “{name}”");
        let read =
            with_reconnect(&Reconnecting(&self.host), &what, || self.read_once(name, path)).await;
        match read {
            Ok((assembler, info)) => assembler.finish(Ok(info)),
            Err(e) => FileAssembler::new(name, MAX_UPLOAD_BYTES).finish(Err(e)),
        }
    }

    /// One `file.read`: the chunks it streamed and the host's final info.
    async fn read_once(
        &self,
        name: &str,
        path: &str,
    ) -> Result<(FileAssembler, FileInfo), ErrorBody> {
        let assembler = Rc::new(RefCell::new(FileAssembler::new(name, MAX_UPLOAD_BYTES)));
        let sink = assembler.clone();
        let info: FileInfo = self
            .host
            .request_with_events(FileRead { path: path.to_owned() }, move |event| {
                if let HostEvent::FileChunk { seq, data } = event {
                    sink.borrow_mut().push(seq, &data);
                }
            })
            .await?;
        Ok((assembler.replace(FileAssembler::new(name, 0)), info))
    }
}
