//! Names for controls that carry no text: what a person would call an icon when nothing
//! names it for a screen reader. The content script feeds the strings it read (class lists,
//! icon references, image file names); native tests cover the rules.

/// Words of icon class names and references that say nothing about what the icon shows:
/// icon-font and framework prefixes, sizes, layout and colour utilities.
const NOISE: &[&str] = &[
    "fa",
    "fas",
    "far",
    "fab",
    "fal",
    "fad",
    "fat",
    "solid",
    "regular",
    "light",
    "duotone",
    "thin",
    "sharp",
    "brands",
    "icon",
    "icons",
    "ico",
    "glyph",
    "glyphicon",
    "glyphicons",
    "material",
    "symbols",
    "outlined",
    "outline",
    "rounded",
    "filled",
    "fill",
    "mdi",
    "bi",
    "lucide",
    "feather",
    "octicon",
    "heroicon",
    "heroicons",
    "svg",
    "inline",
    "btn",
    "button",
    "action",
    "actions",
    "toolbar",
    "item",
    "small",
    "large",
    "medium",
    "tiny",
    "huge",
    "fixed",
    "width",
    "height",
    "text",
    "color",
    "colour",
    "gray",
    "grey",
    "white",
    "black",
    "muted",
    "primary",
    "secondary",
    "hover",
    "active",
    "focus",
    "pointer",
    "cursor",
    "clickable",
    "flex",
    "block",
    "hidden",
    "wrapper",
    "wrap",
    "container",
    "inner",
    "outer",
    "img",
    "image",
    "png",
    "jpg",
    "jpeg",
    "gif",
    "webp",
    "svg",
    "ui",
    "js",
    "has",
    "is",
    "the",
    "and",
    "css",
    "style",
    "styled",
    "component",
    "default",
    "control",
    "controls",
    "sprite",
    "sprites",
    "use",
    "link",
    "nav",
    "list",
    "row",
    "col",
    "cell",
    "card",
    "wide",
    "full",
    "auto",
    "center",
    "align",
    "self",
    "shrink",
    "grow",
    "none",
    "transition",
    "opacity",
    "rotate",
    "scale",
    "span",
    "div",
    "mat",
    "ant",
    "anticon",
    "el",
    "van",
    "semi",
    "bx",
    "bxs",
    "bxl",
    "ri",
    "ti",
    "tabler",
    "ion",
    "ionicon",
    "ionicons",
    "iconify",
    "codicon",
    "remix",
    "line",
    "fw",
    "lg",
    "sm",
    "md",
    "xl",
    "xs",
    "xxl",
    "twotone",
    "round",
    "two",
    "tone",
];

/// The words of `sources` (class lists, `#icon-star` references, file names) that may say
/// what an icon shows: lower-case letters only, three or more, not [`NOISE`], not from hashed
/// class names (a word with digits or mixed case, `sc-bdfBwQ`, `css-1x2y3z`), at most two,
/// from the first source that has any. Empty when none qualifies.
pub fn icon_words<'a>(sources: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for source in sources {
        // A path or URL: only its last segment, without the extension, names the picture.
        let source = source.rsplit(['/', '#']).next().unwrap_or(source);
        let source = source.split(['?', '.']).next().unwrap_or(source);
        for class in source.split_whitespace() {
            for word in class.split(|c: char| !c.is_ascii_alphanumeric()) {
                let plain = word.len() >= 3
                    && word.chars().all(|c| c.is_ascii_lowercase())
                    && !NOISE.contains(&word);
                if plain && !words.iter().any(|w| w == word) {
                    words.push(word.to_owned());
                    if words.len() == 2 {
                        return words;
                    }
                }
            }
        }
        // The first source that says something is the icon itself; the next ones are its
        // wrappers ("tool", "row").
        if !words.is_empty() {
            return words;
        }
    }
    words
}

/// The name of an icon-only control from its [`icon_words`] (`trash icon`), or `None`.
pub fn icon_name<'a>(sources: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let words = icon_words(sources);
    (!words.is_empty()).then(|| format!("{} icon", words.join(" ")))
}

/// Longest text beside a field that is still taken for its label: longer text is prose.
pub const MAX_NEARBY: usize = 60;

/// The name of a form field that nothing ties a label to (a `<label>` without `for=` before
/// it, `Name: <input>`, a label in the previous table cell): what a person reads beside it.
/// `candidates` come nearest first; the first that reads like a label wins — not empty, at
/// most [`MAX_NEARBY`] characters — without its trailing `:` and `*` (the required mark).
pub fn nearby_label<'a>(candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    candidates.into_iter().find_map(|raw| {
        let text = super::clean(raw);
        let text = text.trim_end_matches(|c: char| c == ':' || c == '*' || c.is_whitespace());
        let text = text.trim_start_matches(|c: char| c == '*' || c.is_whitespace());
        let fits = !text.is_empty() && text.chars().count() <= MAX_NEARBY;
        fits.then(|| text.to_owned())
    })
}

/// Longest value (`4`, `30 %`, `1,200 €`) taken off the end of a label that shows it.
const MAX_SHOWN_VALUE: usize = 12;

/// A label that shows its control's value after a colon (`Guests: 4`, `Volume: 30%`), without
/// the value: the control's name must not change as it moves (its ref would go stale), and
/// the value is read on its own. Other labels come back as they are.
pub fn without_shown_value(label: &str) -> &str {
    let Some((name, value)) = label.split_once(':') else { return label };
    let (name, value) = (name.trim_end(), value.trim());
    let numeric = value.chars().any(|c| c.is_ascii_digit())
        && value.chars().count() <= MAX_SHOWN_VALUE
        && !value.chars().any(char::is_alphabetic);
    if numeric && !name.is_empty() { name } else { label }
}

/// Joins text pieces read from separate elements with one space where neither side has one,
/// so list items do not run together ("Bahamas Bahrain", not "BahamasBahrain").
pub fn join_pieces<'a>(pieces: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for piece in pieces {
        if piece.is_empty() {
            continue;
        }
        let needs_space = !out.is_empty()
            && !out.ends_with(char::is_whitespace)
            && !piece.starts_with(char::is_whitespace);
        if needs_space {
            out.push(' ');
        }
        out.push_str(piece);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_shown_after_the_label_is_not_the_name() {
        assert_eq!(without_shown_value("Guests: 4"), "Guests");
        assert_eq!(without_shown_value("Volume : 30 %"), "Volume");
        assert_eq!(without_shown_value("Price: 1,200 €"), "Price");
        assert_eq!(without_shown_value("Time: 10:30"), "Time");
        assert_eq!(without_shown_value("Mode: fast"), "Mode: fast");
        assert_eq!(without_shown_value(": 4"), ": 4");
        assert_eq!(without_shown_value("Guests"), "Guests");
    }

    #[test]
    fn icon_classes_give_their_meaning() {
        assert_eq!(icon_name(["fa fa-trash"]).as_deref(), Some("trash icon"));
        assert_eq!(icon_name(["icon icon-star-outline"]).as_deref(), Some("star icon"));
        assert_eq!(icon_name(["lucide lucide-arrow-left"]).as_deref(), Some("arrow left icon"));
        assert_eq!(icon_name(["/static/img/delete.png"]).as_deref(), Some("delete icon"));
        assert_eq!(icon_name(["#icon-reply"]).as_deref(), Some("reply icon"));
        // A control with nothing drawn in it but its id (MiniWoB's mail's send control).
        assert_eq!(icon_name(["send-reply"]).as_deref(), Some("send reply icon"));
        assert_eq!(
            icon_name(["", "material-icons md-18", "btn-edit"]).as_deref(),
            Some("edit icon")
        );
    }

    #[test]
    fn hashed_and_utility_classes_are_not_names() {
        assert_eq!(icon_name(["sc-bdfBwQ css-1x2y3z w-4 h-4 text-gray-500"]), None);
        assert_eq!(icon_name([""]), None);
        assert_eq!(icon_words(["fa fa-solid fa-heart", "fa-lg"]), ["heart"]);
        assert_eq!(icon_words(["fa fa-heart", "tool"]), ["heart"]);
    }

    #[test]
    fn a_field_is_named_by_the_label_beside_it() {
        assert_eq!(nearby_label(["Username"]).as_deref(), Some("Username"));
        assert_eq!(nearby_label(["  Email address: * "]).as_deref(), Some("Email address"));
        assert_eq!(nearby_label(["", "Password"]).as_deref(), Some("Password"), "nearest first");
        let prose = "This paragraph explains at length why we need your details and how \
                     we keep them safe.";
        assert_eq!(nearby_label([prose, "Phone"]).as_deref(), Some("Phone"));
        assert_eq!(nearby_label([":", "*"]), None);
        assert_eq!(nearby_label(Vec::<&str>::new()), None);
    }

    #[test]
    fn pieces_are_spaced() {
        assert_eq!(
            join_pieces(["Bahamas", "Bahrain", "", "Bangladesh"]),
            "Bahamas Bahrain Bangladesh"
        );
        assert_eq!(join_pieces(["Hello ", "world"]), "Hello world");
    }
}
