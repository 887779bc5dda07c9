//! The page-wide paint gate: which paint properties the walk must read per element, decided
//! once per walk from every source of style the document has.
//!
//! Why: the walk's hidden-text checks read a filter, a clip path, a mask, a transform and, for
//! text, `-webkit-text-security` on every element that renders, to find the few that hide
//! text; most pages never set some of them at all. A property no source can set is at its
//! initial value on every element, so its read says nothing and is skipped.
//!
//! Soundness: the content script reads the names every source declares (same-origin sheets
//! with their `@import`ed, grouping, nested and `@keyframes` rules, adopted sheets, `style`
//! attributes, running animations and transitions; each open shadow root's as the walk reaches
//! its host, before the host's own style). A source it cannot read — a cross-origin sheet,
//! more rules than the budget, a closed shadow root, no way to see closed roots — opens the
//! gate: every property is read, as without it. The names are CSSOM longhands (a shorthand or
//! `all` is listed as its longhands), keyframe keys (camelCase) or a transition's property.
//! The user-agent sheet sets none of these properties on an element whose reads the gate
//! skips (`-webkit-text-security` only on password fields, which have no text of their own).

/// A paint property the walk reads per element only to find it off its initial value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gated {
    /// `filter`.
    Filter,
    /// `clip-path`.
    ClipPath,
    /// `mask-image` (and every other mask longhand).
    Mask,
    /// `-webkit-text-security`.
    TextSecurity,
    /// `transform`.
    Transform,
}

impl Gated {
    /// Every gated property.
    pub const ALL: [Gated; 5] =
        [Gated::Filter, Gated::ClipPath, Gated::Mask, Gated::TextSecurity, Gated::Transform];

    /// The property's bit in [`PaintGate::bits`] (the content script's JS uses the same).
    pub const fn bit(self) -> u32 {
        match self {
            Gated::Filter => 1,
            Gated::ClipPath => 2,
            Gated::Mask => 4,
            Gated::TextSecurity => 8,
            Gated::Transform => 16,
        }
    }

    /// The gated properties a declared property name can set, as [`PaintGate::bits`]: a CSSOM
    /// longhand (`clip-path`, `-webkit-mask-image`), a keyframe's key (`clipPath`,
    /// `webkitMaskImage`) or a transition's property; `all` sets every one. Allocation-free:
    /// a page declares thousands of names per walk.
    pub fn bits_set_by(name: &str) -> u32 {
        // A custom property sets nothing by itself (a `var()` counts where it is used).
        if name.starts_with("--") {
            return 0;
        }
        // Case and dashes dropped: `clip-path`, `clipPath` and `-webkit-clip-path` meet.
        let mut buf = [0u8; 40];
        let mut n = 0;
        for b in name.bytes().filter(|b| *b != b'-') {
            if n == buf.len() {
                break;
            }
            buf[n] = b.to_ascii_lowercase();
            n += 1;
        }
        let squashed = &buf[..n];
        let bare = squashed.strip_prefix(b"webkit").unwrap_or(squashed);
        match bare {
            b"all" => PaintGate::OPEN.0,
            b"filter" => Gated::Filter.bit(),
            b"clippath" => Gated::ClipPath.bit(),
            b"textsecurity" => Gated::TextSecurity.bit(),
            b"transform" => Gated::Transform.bit(),
            _ if bare.starts_with(b"mask") => Gated::Mask.bit(),
            _ => 0,
        }
    }
}

/// What the content script read of a document's (or a shadow root's) style sources.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StyleSources {
    /// Every source was read: the property names they declare, separated by white space (one
    /// string crosses from JS to wasm, not one per name).
    Declared(String),
    /// A source could not be read (see the module doc).
    Unreadable,
}

/// Which gated properties each element must read (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PaintGate(u32);

impl PaintGate {
    /// Every property is read: the gate is off.
    pub const OPEN: PaintGate = PaintGate(31);

    /// The gate for a document whose sources are `sources`.
    pub fn from_sources(sources: &StyleSources) -> Self {
        match sources {
            StyleSources::Unreadable => Self::OPEN,
            StyleSources::Declared(names) => PaintGate(
                names.split_ascii_whitespace().fold(0, |bits, n| bits | Gated::bits_set_by(n)),
            ),
        }
    }

    /// The gate once more sources are known (an open shadow root's, as the walk reaches it).
    pub fn widened(self, more: &StyleSources) -> Self {
        PaintGate(self.0 | Self::from_sources(more).0)
    }

    /// The gate once the walk meets a closed shadow root: its sheets style its host and the
    /// host's slotted children, and the nested roots inside it are out of the walk's sight.
    pub fn closed_shadow_root(self) -> Self {
        Self::OPEN
    }

    /// The gate worth using: one that skips every read a rendered box makes (filter, clip
    /// path, mask, transform), else [`PaintGate::OPEN`]. A gate costs each element that can
    /// host a shadow root a check for a closed one (`chrome.dom.openOrClosedShadowRoot`,
    /// measured ≈ 2.6 µs, about what three or four style reads cost), so skipping fewer
    /// reads costs more than it saves.
    pub fn worth_using(self) -> Self {
        let boxes = [Gated::Filter, Gated::ClipPath, Gated::Mask, Gated::Transform];
        if boxes.iter().any(|p| self.reads(*p)) { Self::OPEN } else { self }
    }

    /// Whether each element must read `property`.
    pub fn reads(self, property: Gated) -> bool {
        self.0 & property.bit() != 0
    }

    /// Whether the gate skips any read (else the walk reads as if there were none).
    pub fn skips(self) -> bool {
        self != Self::OPEN
    }

    /// The bits of the properties read ([`Gated::bit`]).
    pub fn bits(self) -> u32 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(names: &[&str]) -> PaintGate {
        PaintGate::from_sources(&StyleSources::Declared(names.join(" ")))
    }

    #[test]
    fn a_page_that_sets_none_of_them_reads_none() {
        let g = gate(&["color", "display", "background-color", "--filter", "opacity"]);
        assert!(Gated::ALL.iter().all(|p| !g.reads(*p)));
        assert!(g.skips());
    }

    #[test]
    fn each_declared_name_opens_its_property() {
        for (name, property) in [
            ("filter", Gated::Filter),
            ("-webkit-filter", Gated::Filter),
            ("clip-path", Gated::ClipPath),
            ("-webkit-clip-path", Gated::ClipPath),
            ("clipPath", Gated::ClipPath),
            ("mask-image", Gated::Mask),
            ("-webkit-mask-image", Gated::Mask),
            ("webkitMaskImage", Gated::Mask),
            ("mask-border-source", Gated::Mask),
            ("-webkit-mask-box-image-source", Gated::Mask),
            ("-webkit-text-security", Gated::TextSecurity),
            ("webkitTextSecurity", Gated::TextSecurity),
            ("transform", Gated::Transform),
            ("-webkit-transform", Gated::Transform),
        ] {
            let g = gate(&["color", name]);
            assert!(g.reads(property), "{name} must open {property:?}");
            let others = Gated::ALL.iter().filter(|p| **p != property);
            assert!(others.clone().all(|p| !g.reads(*p)), "{name} opens only {property:?}");
        }
    }

    #[test]
    fn near_names_open_nothing() {
        let g = gate(&["transform-origin", "filter-x", "clip", "text-shadow", "backdrop-filter"]);
        assert_eq!(g, gate(&[]));
    }

    #[test]
    fn all_opens_everything() {
        assert_eq!(gate(&["all"]), PaintGate::OPEN);
    }

    #[test]
    fn an_unreadable_source_or_a_closed_root_opens_the_gate() {
        assert_eq!(PaintGate::from_sources(&StyleSources::Unreadable), PaintGate::OPEN);
        assert!(!PaintGate::OPEN.skips());
        assert_eq!(gate(&[]).widened(&StyleSources::Unreadable), PaintGate::OPEN);
        assert_eq!(gate(&[]).closed_shadow_root(), PaintGate::OPEN);
    }

    #[test]
    fn a_gate_that_skips_few_reads_is_not_used() {
        assert_eq!(gate(&["transform"]).worth_using(), PaintGate::OPEN);
        let text_only = gate(&["-webkit-text-security"]);
        assert_eq!(text_only.worth_using(), text_only);
        assert!(text_only.skips());
    }

    #[test]
    fn a_shadow_roots_sources_widen_the_gate() {
        let g = gate(&["filter"]).widened(&StyleSources::Declared("clip-path".into()));
        assert!(g.reads(Gated::Filter) && g.reads(Gated::ClipPath));
        assert!(!g.reads(Gated::Mask));
    }
}
