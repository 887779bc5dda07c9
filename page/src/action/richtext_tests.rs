use super::*;
use crate::observation::rules::parse_keys;

fn pieces(parts: &[(&str, bool)]) -> Vec<Piece> {
    parts.iter().map(|(t, b)| Piece { text: (*t).to_owned(), breaks_before: *b }).collect()
}

#[test]
fn a_passage_is_found_across_elements_and_paragraphs() {
    // <p>First <strong>para</strong>graph.</p><p>Second paragraph here.</p>
    let p = pieces(&[
        ("First ", true),
        ("para", false),
        ("graph.", false),
        ("Second paragraph here.", true),
    ]);
    // Inside one bold word and its neighbour.
    let span = locate(&p, "paragraph.").expect("unique with the period");
    assert_eq!(span.start, Point { piece: 1, offset: 0 });
    assert_eq!(span.end, Point { piece: 2, offset: 6 });
    // Across the paragraph boundary, which reads as a space.
    let span = locate(&p, "graph.  Second").expect("across blocks");
    assert_eq!(
        (span.start, span.end.piece, span.end.offset),
        (Point { piece: 2, offset: 0 }, 3, 6)
    );
    // Case is a fallback, never a way to choose between two.
    assert!(locate(&p, "second PARAGRAPH").is_ok());
}

#[test]
fn missing_and_ambiguous_passages_are_said_not_guessed() {
    let p = pieces(&[("Old draft. Old notes.", true)]);
    assert_eq!(locate(&p, "Old"), Err(PassageError::Ambiguous { wanted: "Old".into(), count: 2 }));
    let missing = locate(&p, "New draft").expect_err("missing");
    assert!(missing.to_string().contains("it reads: “Old draft. Old notes.”"), "{missing}");
    assert_eq!(locate(&p, "   "), Err(PassageError::Empty));
}

#[test]
fn offsets_are_utf16_units_of_each_node() {
    // “ is one UTF-16 unit and three bytes; 😀 is two units.
    let p = pieces(&[("“Zoë” 😀 ok", true)]);
    let span = locate(&p, "ok").expect("found");
    assert_eq!(span.start.offset, 9);
    assert_eq!(span.end.offset, 11);
    let span = locate(&p, "Zoë”").expect("found");
    assert_eq!((span.start.offset, span.end.offset), (1, 5));
}

#[test]
fn marks_read_as_markdown() {
    let mut bold = Marks::default();
    bold.add_element("strong", "");
    let mut styled = Marks::default();
    styled.add_element("span", "font-weight: 700; font-style: italic");
    assert!(styled.bold && styled.italic);
    let mut light = Marks::default();
    light.add_element("span", "font-weight: 400");
    assert!(!light.bold);
    let link = Marks { link: Some("https://x.example/".into()), ..Marks::default() };
    let runs = vec![
        ("Launch ".to_owned(), Marks::default()),
        ("moved ".to_owned(), bold.clone()),
        ("to".to_owned(), bold.clone()),
        (" Friday".to_owned(), styled),
        (" notes".to_owned(), link),
    ];
    assert_eq!(markdown(&runs), "Launch **moved to** **_Friday_** [notes](https://x.example/)");
}

#[test]
fn formatting_shortcuts_and_controls() {
    let press = |k: &str| parse_keys(k).expect("keys").remove(0);
    assert_eq!(format_command(&press("Control+b")), Some("bold"));
    assert_eq!(format_command(&press("Meta+I")), Some("italic"));
    assert_eq!(format_command(&press("Control+Shift+b")), None);
    assert_eq!(format_command(&press("b")), None);
    assert!(is_format_control("Bold (Ctrl+B)"));
    assert!(is_format_control("ql-italic"));
    assert!(is_format_control("Insert link"));
    assert!(!is_format_control("Save note"));
    assert!(!is_format_control("Boldly go"));
}

#[test]
fn a_format_command_that_changed_nothing_is_not_ok() {
    let unchanged = judge_format("Old draft", "Old draft", "draft");
    assert!(unchanged.expect_err("nothing changed").to_string().starts_with("changed nothing"));
    let bolded = judge_format("Old draft", "Old **draft**", "**draft**");
    assert!(bolded.expect("changed").contains("**draft**"));
}
