//! Visual order of a list's items (see the content script's `order.rs`, which measures): the
//! items sorted top to bottom, then left to right, as a person reads them.

/// Two tops closer than this, in CSS pixels, are one row (sub-pixel placement, borders).
const SAME_ROW_PX: f64 = 2.0;

/// The order to read items placed at `(top, left)` (viewport pixels, DOM order), or `None`
/// when that is DOM order already.
pub fn drawn_order(boxes: &[(f64, f64)]) -> Option<Vec<usize>> {
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&a, &b| {
        let (ta, la) = boxes[a];
        let (tb, lb) = boxes[b];
        if (ta - tb).abs() < SAME_ROW_PX {
            la.total_cmp(&lb).then(a.cmp(&b))
        } else {
            ta.total_cmp(&tb)
        }
    });
    if order.iter().enumerate().all(|(i, &o)| i == o) { None } else { Some(order) }
}

/// The name of a slider thumb named by the group around it: the group's label, with the
/// thumb's place when the group holds several (a range's two ends).
pub fn thumb_name(group: &str, place: usize, count: usize) -> String {
    if count <= 1 { group.to_owned() } else { format!("{group} ({} of {count})", place + 1) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_moved_by_transforms_read_top_to_bottom() {
        // A grid sorted by price: its rows stay in DOM order, their transforms move them.
        let rows = [(120.0, 0.0), (162.0, 0.0), (78.0, 0.0), (36.0, 0.0)];
        assert_eq!(drawn_order(&rows), Some(vec![3, 2, 0, 1]));
        // Already drawn in DOM order: nothing to reorder.
        assert_eq!(drawn_order(&[(0.0, 0.0), (40.0, 0.0), (80.0, 0.0)]), None);
        // One row of cards placed by `order`: left to right, sub-pixel tops are one row.
        assert_eq!(drawn_order(&[(10.0, 300.0), (10.4, 0.0), (9.8, 150.0)]), Some(vec![1, 2, 0]));
        assert_eq!(drawn_order(&[]), None);
    }

    #[test]
    fn thumbs_of_one_range_never_read_the_same() {
        assert_eq!(thumb_name("Price per night", 0, 2), "Price per night (1 of 2)");
        assert_eq!(thumb_name("Price per night", 1, 2), "Price per night (2 of 2)");
        assert_eq!(thumb_name("Volume", 0, 1), "Volume");
    }
}
