//! The session side of the worker: the open panels as the core's app sees them, and the
//! redraw each change asks for. Every decision is in `waymark_core::app`, natively tested.

use super::Worker;
use super::env::BrowserEnv;
use std::rc::Rc;
use waymark_core::platform::Redraw;
use waymark_core::session::Session;

/// The open side panels, as the core's app sees them.
pub(super) struct WorkerPanels(pub Rc<Worker>);

impl waymark_core::platform::Panels for WorkerPanels {
    fn show(&self, shown: Redraw) {
        redraw(&self.0, shown);
    }
}

/// Sends the panel what changed.
pub(super) fn redraw(w: &Rc<Worker>, redraw: Redraw) {
    match redraw {
        Redraw::Session => {
            super::status::follow_session(w);
            super::snapshot::save(w);
            w.broadcast();
        }
        Redraw::View => w.broadcast(),
        Redraw::Nothing => {}
    }
}

/// Makes a new, empty session current, whatever the panel shows.
pub(super) async fn start_new(w: &Rc<Worker>) {
    let shown = w.app.sessions.start_new(&w.app.state, &BrowserEnv).await;
    redraw(w, shown);
}

/// A session by id: the current one, else the stored one.
pub(super) async fn find(w: &Rc<Worker>, id: &str) -> Option<Session> {
    w.app.sessions.find(&w.app.state, id).await
}

/// Makes `session` the current one, whatever the panel shows.
pub(super) async fn switch_to(w: &Rc<Worker>, session: Session) {
    let shown = w.app.sessions.switch_to(&w.app.state, session).await;
    redraw(w, shown);
}
