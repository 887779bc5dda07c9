//! The Windows named pipe (tokio's `named_pipe`): a name with 64 random bits (written only
//! into the user's own registration directory), a DACL that lets this user alone open it,
//! remote clients rejected, the first instance created with `FILE_FLAG_FIRST_PIPE_INSTANCE`
//! (a pipe someone else created first under that name makes the bridge fail instead of
//! serving beside it), and peers checked by their process token's user. A client checks that
//! the pipe is served by the registered host process before it sends the secret.
//!
//! The Win32 calls (tokens, SIDs, security descriptors, pipe process ids) need `unsafe`; each
//! block is small, checks every return value and frees what it allocates.

#![allow(unsafe_code, reason = "Win32 security and pipe calls have no safe wrapper in tokio")]

use std::ffi::c_void;
use std::io;
use std::os::windows::io::AsRawHandle;

use tokio::net::windows::named_pipe::{ClientOptions, NamedPipeServer, ServerOptions};
use windows_sys::Win32::Foundation::{
    CloseHandle, ERROR_PIPE_BUSY, HANDLE, LocalFree, STILL_ACTIVE,
};
use windows_sys::Win32::Security::Authorization::{
    ConvertSidToStringSidW, ConvertStringSecurityDescriptorToSecurityDescriptorW, SDDL_REVISION_1,
};
use windows_sys::Win32::Security::{
    GetLengthSid, GetTokenInformation, PSECURITY_DESCRIPTOR, SECURITY_ATTRIBUTES, TOKEN_QUERY,
    TOKEN_USER, TokenUser,
};
use windows_sys::Win32::System::Pipes::{GetNamedPipeClientProcessId, GetNamedPipeServerProcessId};
use windows_sys::Win32::System::Threading::{
    GetCurrentProcess, GetExitCodeProcess, OpenProcess, OpenProcessToken,
    PROCESS_QUERY_LIMITED_INFORMATION,
};

use super::{Accepted, ReadHalf, WriteHalf, unreachable};
use crate::bridge::registry::{BridgeError, Registration};

/// Attempts to open a pipe whose instances are all busy (another client is being accepted),
/// 50 ms apart.
const BUSY_ATTEMPTS: u32 = 100;

/// A pipe name no one can guess ahead: the host's pid, the opening's number and 64 random
/// bits.
pub fn pipe_name(pid: u32, seq: u64) -> Option<String> {
    let mut bytes = [0u8; 8];
    // Without randomness the name is still the host's alone: the first instance is ours.
    let random = getrandom::fill(&mut bytes).map_or(0, |()| u64::from_le_bytes(bytes));
    Some(format!(r"\\.\pipe\waymark-bridge-{pid}-{seq}-{random:016x}"))
}

/// A handle closed when dropped.
struct Handle(HANDLE);

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the handle was opened by us and is closed once.
        unsafe { CloseHandle(self.0) };
    }
}

/// The user SID (its bytes) of `process`'s token.
fn token_user(process: HANDLE) -> Option<Vec<u8>> {
    let mut token: HANDLE = std::ptr::null_mut();
    // SAFETY: `token` receives a handle we close through `Handle`.
    if unsafe { OpenProcessToken(process, TOKEN_QUERY, &mut token) } == 0 {
        return None;
    }
    let token = Handle(token);
    let mut len = 0u32;
    // SAFETY: a size query: no buffer is written.
    unsafe { GetTokenInformation(token.0, TokenUser, std::ptr::null_mut(), 0, &mut len) };
    if len == 0 {
        return None;
    }
    // u64 elements keep the TOKEN_USER header aligned.
    let mut buf = vec![0u64; (len as usize).div_ceil(8)];
    // SAFETY: `buf` holds at least `len` bytes.
    let ok =
        unsafe { GetTokenInformation(token.0, TokenUser, buf.as_mut_ptr().cast(), len, &mut len) };
    if ok == 0 {
        return None;
    }
    // SAFETY: the call filled a TOKEN_USER at the start of `buf`, whose SID points into it.
    unsafe {
        let user = &*(buf.as_ptr().cast::<TOKEN_USER>());
        let sid = user.User.Sid;
        let n = GetLengthSid(sid) as usize;
        Some(std::slice::from_raw_parts(sid.cast::<u8>(), n).to_vec())
    }
}

/// This process's user SID.
fn my_user() -> io::Result<Vec<u8>> {
    // SAFETY: the pseudo handle of the current process needs no closing.
    token_user(unsafe { GetCurrentProcess() }).ok_or_else(io::Error::last_os_error)
}

/// A SID (its bytes) as text (`S-1-5-21-…`).
fn sid_text(sid: &[u8]) -> io::Result<String> {
    let mut out: *mut u16 = std::ptr::null_mut();
    // SAFETY: `sid` is a whole SID; `out` is freed with LocalFree below.
    if unsafe { ConvertSidToStringSidW(sid.as_ptr().cast_mut().cast(), &mut out) } == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `out` is a NUL-terminated UTF-16 string the call allocated.
    let text = unsafe {
        let len = (0..).take_while(|&i| *out.add(i) != 0).count();
        let text = String::from_utf16_lossy(std::slice::from_raw_parts(out, len));
        LocalFree(out.cast());
        text
    };
    Ok(text)
}

/// A security descriptor whose DACL lets one user in and inherits nothing.
struct Descriptor(PSECURITY_DESCRIPTOR);

// SAFETY: the descriptor is immutable once made and only read by CreateNamedPipe.
unsafe impl Send for Descriptor {}
// SAFETY: as above.
unsafe impl Sync for Descriptor {}

impl Descriptor {
    fn for_user(sid: &str) -> io::Result<Self> {
        let sddl: Vec<u16> =
            format!("D:P(A;;GA;;;{sid})").encode_utf16().chain(std::iter::once(0)).collect();
        let mut sd: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
        // SAFETY: `sddl` is NUL-terminated; `sd` is freed in Drop.
        let ok = unsafe {
            ConvertStringSecurityDescriptorToSecurityDescriptorW(
                sddl.as_ptr(),
                SDDL_REVISION_1,
                &mut sd,
                std::ptr::null_mut(),
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Self(sd))
    }
}

impl Drop for Descriptor {
    fn drop(&mut self) {
        // SAFETY: allocated by ConvertStringSecurityDescriptorToSecurityDescriptorW.
        unsafe { LocalFree(self.0) };
    }
}

/// One instance of the pipe, waiting for a client.
fn instance(name: &str, descriptor: &Descriptor, first: bool) -> io::Result<NamedPipeServer> {
    let mut attributes = SECURITY_ATTRIBUTES {
        nLength: std::mem::size_of::<SECURITY_ATTRIBUTES>() as u32,
        lpSecurityDescriptor: descriptor.0,
        bInheritHandle: 0,
    };
    let attributes: *mut c_void = (&mut attributes as *mut SECURITY_ATTRIBUTES).cast();
    // SAFETY: `attributes` points to a valid SECURITY_ATTRIBUTES for the call's duration.
    unsafe {
        ServerOptions::new()
            .first_pipe_instance(first)
            .reject_remote_clients(true)
            .create_with_security_attributes_raw(name, attributes)
    }
}

/// The pipe, with the instance the next client connects to.
pub struct Listener {
    name: String,
    next: NamedPipeServer,
    descriptor: Descriptor,
    me: Vec<u8>,
}

impl Listener {
    /// Creates the first instance of `reg`'s pipe, for this user alone.
    pub fn bind(reg: &Registration) -> Result<Self, BridgeError> {
        let name = reg.pipe.clone().ok_or_else(|| {
            BridgeError::Protocol("a bridge registration without a pipe name".into())
        })?;
        let io = |what: &str| {
            let what = format!("{what} for {name}");
            move |source| BridgeError::Io { what, source }
        };
        let me = my_user().map_err(io("reading this user's SID"))?;
        let sid = sid_text(&me).map_err(io("writing this user's SID"))?;
        let descriptor = Descriptor::for_user(&sid).map_err(io("making the pipe's DACL"))?;
        let next = instance(&name, &descriptor, true).map_err(io("creating the pipe"))?;
        Ok(Self { name, next, descriptor, me })
    }

    /// The next client (a fresh instance waits for the one after).
    pub async fn accept(&mut self) -> io::Result<Accepted> {
        self.next.connect().await?;
        let fresh = instance(&self.name, &self.descriptor, false)?;
        let connected = std::mem::replace(&mut self.next, fresh);
        let same_user = client_user(&connected).is_some_and(|u| u == self.me);
        let (read, write) = tokio::io::split(connected);
        Ok(Accepted { read: Box::new(read), write: Box::new(write), same_user })
    }
}

/// The user SID of the process at the other end of `pipe`.
fn client_user(pipe: &NamedPipeServer) -> Option<Vec<u8>> {
    let mut pid = 0u32;
    // SAFETY: the pipe's handle stays open for the call.
    if unsafe { GetNamedPipeClientProcessId(pipe.as_raw_handle(), &mut pid) } == 0 {
        return None;
    }
    // SAFETY: a query-only handle, closed through `Handle`.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if process.is_null() {
        return None;
    }
    let process = Handle(process);
    token_user(process.0)
}

/// Opens `reg`'s pipe; refuses one that another process than the registered host serves.
pub async fn connect(reg: &Registration) -> Result<(ReadHalf, WriteHalf), BridgeError> {
    let Some(name) = &reg.pipe else {
        return Err(unreachable(reg, &io::Error::from(io::ErrorKind::NotFound)));
    };
    let mut attempts = 0;
    let client = loop {
        match ClientOptions::new().open(name) {
            Ok(client) => break client,
            Err(e)
                if e.raw_os_error() == Some(ERROR_PIPE_BUSY as i32) && attempts < BUSY_ATTEMPTS =>
            {
                attempts += 1;
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            Err(e) => return Err(unreachable(reg, &e)),
        }
    };
    let mut server = 0u32;
    // SAFETY: the client's handle stays open for the call.
    let ok = unsafe { GetNamedPipeServerProcessId(client.as_raw_handle(), &mut server) };
    if ok == 0 || server != reg.pid {
        return Err(BridgeError::Refused(format!(
            "the pipe {name} is served by process {server}, not by the browser's Waymark host \
             (process {}); the secret was not sent",
            reg.pid
        )));
    }
    let (read, write) = tokio::io::split(client);
    Ok((Box::new(read), Box::new(write)))
}

/// Whether process `pid` still runs.
pub fn alive(pid: u32) -> bool {
    // SAFETY: a query-only handle, closed through `Handle`.
    let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if process.is_null() {
        return false;
    }
    let process = Handle(process);
    let mut code = 0u32;
    // SAFETY: `code` receives the exit code.
    let ok = unsafe { GetExitCodeProcess(process.0, &mut code) };
    ok != 0 && code == STILL_ACTIVE as u32
}
