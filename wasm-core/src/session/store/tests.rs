//! Sessions written to and read back from an in-memory store, and every way a read can fail.

use super::*;
use crate::platform::memory::MemStore;
use crate::session::tests::{record, session_of};
use futures::executor::block_on;

#[test]
fn a_saved_session_reads_back_whole_and_becomes_current() {
    let mem = MemStore::default();
    let sessions = SessionStore::new(&mem);
    let session = session_of(3);
    block_on(sessions.save_turns(&session, &[1, 2, 3], true)).expect("saved");
    assert_eq!(
        block_on(sessions.current_id()).expect("read").as_deref(),
        Some(session.id.as_str())
    );
    let back = block_on(sessions.load_current()).expect("read").expect("stored");
    assert_eq!(back, session);
    let listed = block_on(sessions.list()).expect("listed");
    assert_eq!(listed, Listed { metas: vec![session.meta()], unreadable: 0 });
}

#[test]
fn a_turn_that_does_not_read_is_numbered_kept_and_never_overwritten() {
    let mem = MemStore::default();
    let sessions = SessionStore::new(&mem);
    let session = session_of(3);
    block_on(sessions.save_turns(&session, &[1, 2, 3], false)).expect("saved");
    let damaged = Session::turn_key(&session.id, 2);
    mem.map.borrow_mut().insert(damaged.clone(), serde_json::json!({"turn": "two"}));
    let mut back = block_on(sessions.load(&session.id)).expect("read").expect("stored");
    assert_eq!(back.unreadable, vec![2]);
    assert_eq!(back.records.iter().map(|r| r.turn).collect::<Vec<_>>(), vec![1, 3]);
    // The next turn goes after it; the damaged one stays as it was.
    let turn = back.push(record(0, "next", "found"));
    assert_eq!(turn, 4);
    block_on(sessions.save_turns(&back, &[turn], false)).expect("saved");
    assert_eq!(mem.map.borrow()[&damaged], serde_json::json!({"turn": "two"}));
    let again = block_on(sessions.load(&session.id)).expect("read").expect("stored");
    assert_eq!(again.unreadable, vec![2]);
    assert_eq!(again.records.len(), 3);
}

#[test]
fn a_header_that_does_not_read_is_counted_and_its_session_left_alone() {
    let mem = MemStore::default();
    let sessions = SessionStore::new(&mem);
    let good = session_of(1);
    block_on(sessions.save_turns(&good, &[1], false)).expect("saved");
    mem.map.borrow_mut().insert(Session::meta_key("broken"), serde_json::json!(["not", "a meta"]));
    let listed = block_on(sessions.list()).expect("listed");
    assert_eq!(listed.metas.len(), 1);
    assert_eq!(listed.unreadable, 1);
    assert_eq!(block_on(sessions.load("broken")).expect("read"), None);
    assert!(mem.map.borrow().contains_key(&Session::meta_key("broken")));
}

#[test]
fn a_refused_write_changes_nothing_stored_and_a_failed_read_is_an_error_not_an_empty_list() {
    let mem = MemStore::default();
    let sessions = SessionStore::new(&mem);
    let mut session = session_of(2);
    block_on(sessions.save_turns(&session, &[1, 2], true)).expect("saved");
    let before = mem.map.borrow().clone();
    mem.refuse_writes.set(true);
    session.push(record(0, "third", "x"));
    assert!(block_on(sessions.save_turns(&session, &[3], true)).is_err());
    assert!(block_on(sessions.delete(&session.id, 3)).is_err());
    assert_eq!(*mem.map.borrow(), before);
    mem.refuse_reads.set(true);
    assert!(block_on(sessions.list()).is_err());
    assert!(block_on(sessions.load(&session.id)).is_err());
    assert!(block_on(sessions.load_all()).is_err());
}

#[test]
fn a_deleted_session_leaves_no_key_behind_and_others_stay() {
    let mem = MemStore::default();
    let sessions = SessionStore::new(&mem);
    let mut gone = session_of(2);
    gone.id = "gone".into();
    let mut kept = session_of(1);
    kept.id = "kept".into();
    block_on(sessions.save_turns(&gone, &[1, 2], false)).expect("saved");
    block_on(sessions.save_turns(&kept, &[1], true)).expect("saved");
    block_on(sessions.delete(&gone.id, 2)).expect("deleted");
    assert!(mem.map.borrow().keys().all(|k| !k.contains("gone")), "{:?}", mem.map.borrow());
    let all = block_on(sessions.load_all()).expect("read");
    assert_eq!(all, vec![kept]);
}
