//! The outcome of a drag, read back from where the dragged element is afterwards: a drag that
//! reordered a list or moved a card says where it now is (its place among its siblings, in
//! drawn order), and one after which nothing moved is a failure, never "ok" — unless the page
//! took the drop itself (an HTML5 drop zone that copies, say).

use crate::act_error::DragError;

/// Where an element is among its siblings, as drawn (top to bottom, left to right).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The container's name (its label, heading or tag).
    pub container: String,
    /// An identity of the container, to tell two lists apart whatever their names.
    pub container_id: u64,
    /// 1-based position among the siblings that show.
    pub position: usize,
    /// How many siblings show.
    pub count: usize,
    /// The text of the siblings, in drawn order (shortened).
    pub order: Vec<String>,
}

/// What became of the dragged element: `Ok` with where it is now, or `Err` when nothing moved
/// and the page did not take a drop (`dropped`: it cancelled `dragover` and got the `drop`).
pub fn judge(before: &Place, after: Option<&Place>, dropped: bool) -> Result<String, DragError> {
    let Some(after) = after else {
        return Ok("the dragged element left the page (the drop removed or replaced it)".into());
    };
    let moved = after.container_id != before.container_id || after.order != before.order;
    if moved {
        let into = if after.container_id != before.container_id {
            format!(" into {}", after.container)
        } else {
            String::new()
        };
        return Ok(format!(
            "moved{into}: now {} of {}; the order reads: {}",
            after.position,
            after.count,
            after.order.join(" · ")
        ));
    }
    if dropped {
        return Ok(format!(
            "dropped: the page took the drop; the dragged element stayed {} of {} in {}",
            after.position, after.count, after.container
        ));
    }
    Err(DragError::NothingMoved {
        position: after.position,
        count: after.count,
        container: after.container.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(container_id: u64, order: &[&str], position: usize) -> Place {
        Place {
            container: format!("list {container_id}"),
            container_id,
            position,
            count: order.len(),
            order: order.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    #[test]
    fn a_reorder_says_the_new_order() {
        let before = place(1, &["Milk", "Bread", "Eggs"], 1);
        let after = place(1, &["Bread", "Milk", "Eggs"], 2);
        assert_eq!(
            judge(&before, Some(&after), true),
            Ok("moved: now 2 of 3; the order reads: Bread · Milk · Eggs".into())
        );
        let column = place(2, &["Write report"], 1);
        assert!(judge(&before, Some(&column), true).expect("moved").starts_with("moved into"));
    }

    #[test]
    fn a_drag_that_moved_nothing_is_not_ok() {
        let before = place(1, &["Milk", "Bread"], 1);
        let err = judge(&before, Some(&before.clone()), false).expect_err("nothing");
        assert!(err.to_string().starts_with("nothing moved"), "{err}");
        assert!(judge(&before, Some(&before.clone()), true).is_ok());
        assert!(judge(&before, None, false).is_ok());
    }
}
