//! The session side of the worker: the open panels as the core's app sees them, and the
//! redraw each change asks for. Every decision is in `waymark_core::app`, natively tested.

use super::Worker;
use std::rc::Rc;
use waymark_core::platform::Redraw;

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
