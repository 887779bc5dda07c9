//! The TypeScript declarations of what the side panel sends the worker and of the view it draws
//! ([`PanelView`](super::PanelView)), generated from the
//! Rust types (`ts-rs`, feature `ts`): the panel's JS is type-checked (`cargo xtask check-js`)
//! against exactly what the worker reads, so a message the worker cannot read fails the check
//! instead of reaching the user as "could not read what the side panel sent".
//!
//! `extension/types/` holds the generated files; the test below fails when they differ from
//! what the types generate now (`WAYMARK_BLESS=1` writes them).

#[cfg(all(test, feature = "ts"))]
mod tests {
    use super::super::{PanelRequest, PanelView};
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};
    use ts_rs::TS;

    fn files(dir: &Path) -> BTreeMap<String, String> {
        let Ok(entries) = std::fs::read_dir(dir) else { return BTreeMap::new() };
        entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "ts"))
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(e.path()).expect("readable"))
            })
            .collect()
    }

    #[test]
    fn the_checked_in_declarations_are_the_generated_ones() {
        let checked_in = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../extension/types");
        let scratch = std::env::temp_dir().join(format!("waymark-ts-{}", std::process::id()));
        drop(std::fs::remove_dir_all(&scratch));
        PanelRequest::export_all_to(&scratch).expect("generated");
        PanelView::export_all_to(&scratch).expect("generated");
        let generated = files(&scratch);
        drop(std::fs::remove_dir_all(&scratch));
        assert!(generated.contains_key("PanelRequest.ts"), "{:?}", generated.keys());
        assert!(generated.contains_key("PanelView.ts"), "{:?}", generated.keys());
        if std::env::var_os("WAYMARK_BLESS").is_some() {
            drop(std::fs::remove_dir_all(&checked_in));
            std::fs::create_dir_all(&checked_in).expect("created");
            for (name, text) in &generated {
                std::fs::write(checked_in.join(name), text).expect("written");
            }
        }
        assert_eq!(
            files(&checked_in),
            generated,
            "extension/types/ is not what the Rust types generate: run \
             `WAYMARK_BLESS=1 cargo test -p waymark-core --features ts --lib panel::types`"
        );
    }
}
