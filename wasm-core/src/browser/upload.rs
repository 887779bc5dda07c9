//! Fetching an upload resource's bytes from the native host (`file.read`, streamed as
//! `file.chunk` events); which resource and how much are decided in [`crate::upload`].

use super::host_port::HostClient;
use crate::protocol::{FileInfo, FileRead, HostEvent, RequestBody};
use crate::upload::{FileAssembler, MAX_UPLOAD_BYTES, PreparedFile, UploadError, resolve_resource};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The files a task may upload and the host that reads them.
pub struct Uploads {
    /// Name → path on the user's disk, as attached to the task.
    pub resources: BTreeMap<String, String>,
    /// The native host.
    pub host: Rc<HostClient>,
}

impl Uploads {
    /// Resolves `requested` among the attached resources and reads it through the host.
    pub async fn fetch(&self, requested: &str) -> Result<PreparedFile, UploadError> {
        let (name, path) = resolve_resource(&self.resources, requested)?;
        let assembler = Rc::new(RefCell::new(FileAssembler::new(name, MAX_UPLOAD_BYTES)));
        let sink = assembler.clone();
        let reply = self
            .host
            .request_with_events(
                RequestBody::FileRead(FileRead { path: path.to_owned() }),
                move |event| {
                    if let HostEvent::FileChunk { seq, data } = event {
                        sink.borrow_mut().push(seq, &data);
                    }
                },
            )
            .await
            .and_then(|data| {
                serde_json::from_value::<FileInfo>(data).map_err(|e| crate::protocol::ErrorBody {
                    code: crate::protocol::ErrorCode::BadJson,
                    message: format!("unexpected file.read reply: {e}"),
                })
            });
        let assembler = assembler.replace(FileAssembler::new(name, 0));
        assembler.finish(reply)
    }
}
