//! `collect` on plain trees: a small well-formed HTML reader builds them.
#![allow(
    clippy::string_slice,
    reason = "the test reader cuts its own markup at the ASCII `<` and `>` it found"
)]

use super::*;

#[derive(Default)]
struct Tree {
    tags: Vec<String>,
    attrs: Vec<Vec<(String, String)>>,
    text: Vec<String>,
    parent: Vec<Option<usize>>,
    kids: Vec<Vec<usize>>,
    more_below: bool,
}

impl Tree {
    /// Reads well-formed markup: `<tag a="v">text<child/></tag>`; the root is `html`.
    fn parse(src: &str) -> Self {
        let mut t = Tree::default();
        t.add("html", vec![], None);
        let mut stack = vec![0usize];
        let mut rest = src;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix("</") {
                let end = after.find('>').expect("close");
                rest = &after[end + 1..];
                stack.pop();
            } else if let Some(after) = rest.strip_prefix('<') {
                let end = after.find('>').expect("open");
                let inner = &after[..end];
                rest = &after[end + 1..];
                let selfclosing = inner.ends_with('/');
                let inner = inner.trim_end_matches('/');
                let (tag, attrs) = inner.split_once(' ').unwrap_or((inner, ""));
                let mut list = Vec::new();
                for part in attrs.split('"').collect::<Vec<_>>().chunks(2) {
                    if let [k, v] = part {
                        list.push((k.trim().trim_end_matches('=').to_owned(), (*v).to_owned()));
                    }
                }
                let id = t.add(tag, list, stack.last().copied());
                if !selfclosing {
                    stack.push(id);
                }
            } else {
                let end = rest.find('<').unwrap_or(rest.len());
                let text = &rest[..end];
                rest = &rest[end..];
                let top = *stack.last().expect("open element");
                t.text[top].push_str(text);
                // The text belongs to every ancestor too (textContent).
                let mut up = t.parent[top];
                while let Some(p) = up {
                    t.text[p].push_str(text);
                    up = t.parent[p];
                }
            }
        }
        t
    }

    fn add(&mut self, tag: &str, attrs: Vec<(String, String)>, parent: Option<usize>) -> usize {
        let id = self.tags.len();
        self.tags.push(tag.to_owned());
        self.attrs.push(attrs);
        self.text.push(String::new());
        self.parent.push(parent);
        self.kids.push(Vec::new());
        if let Some(p) = parent {
            self.kids[p].push(id);
            // Spaces between blocks, as a browser renders them.
            let mut up = Some(p);
            while let Some(a) = up {
                self.text[a].push(' ');
                up = self.parent[a];
            }
        }
        id
    }

    fn first(&self, tag: &str, text: &str) -> usize {
        (0..self.tags.len())
            .find(|&i| self.tags[i] == tag && cell(&self.text[i]) == text)
            .expect("element")
    }
}

impl Dom for Tree {
    type Node = usize;
    fn parent(&self, n: &usize) -> Option<usize> {
        self.parent[*n]
    }
    fn children(&self, n: &usize) -> Vec<usize> {
        self.kids[*n].clone()
    }
    fn tag(&self, n: &usize) -> String {
        self.tags[*n].clone()
    }
    fn classes(&self, n: &usize) -> Vec<String> {
        self.attr(n, "class")
            .map(|c| c.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default()
    }
    fn text(&self, n: &usize) -> String {
        self.text[*n].clone()
    }
    fn attr(&self, n: &usize, name: &str) -> Option<String> {
        self.attrs[*n].iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }
    fn href(&self, n: &usize) -> Option<String> {
        self.attr(n, "href")
            .map(|h| if h.starts_with('/') { format!("http://shop.test{h}") } else { h })
    }
    fn shown(&self, n: &usize) -> bool {
        self.attr(n, "hidden").is_none()
    }
    fn by_tag(&self, tag: &str) -> Vec<usize> {
        (0..self.tags.len()).filter(|&i| tag == "*" || self.tags[i] == tag).collect()
    }
    fn more_below(&self) -> bool {
        self.more_below
    }
}

fn spec(columns: &[(&str, &str)]) -> CollectSpec {
    CollectSpec {
        record: None,
        columns: columns
            .iter()
            .map(|(n, e)| ColumnSpec { name: (*n).into(), example: (*e).into() })
            .collect(),
        pages: None,
        name: None,
        shape: None,
    }
}

const TABLE: &str = r#"<body><h1>Kettles</h1><table><thead><tr><th>Name</th><th>Price</th></tr></thead><tbody><tr><td><a href="/k/1">Blue Kettle</a></td><td>$24.99</td></tr><tr><td><a href="/k/2">Red Kettle</a></td><td>$19.50</td></tr><tr><td><a href="/k/3">Steel “Pro” Kettle</a></td><td>€31</td></tr></tbody></table></body>"#;

#[test]
fn table_rows_are_the_records_and_cells_the_columns() {
    let dom = Tree::parse(TABLE);
    let anchor = dom.first("a", "Red Kettle");
    let s = spec(&[("name", "Red Kettle"), ("price", "$19.50"), ("link", "/k/2")]);
    let shape = learn(&dom, Some(anchor), &s).expect("shape");
    assert_eq!(shape.record.tag, "tr");
    assert_eq!(shape.container.tag, "tbody");
    assert_eq!(shape.columns[2].source, CellSource::Link);
    let (_, rows, skipped) = read(&dom, &shape);
    assert_eq!(skipped, 0);
    assert_eq!(
        rows,
        vec![
            vec!["Blue Kettle", "$24.99", "http://shop.test/k/1"],
            vec!["Red Kettle", "$19.50", "http://shop.test/k/2"],
            vec!["Steel “Pro” Kettle", "€31", "http://shop.test/k/3"],
        ]
    );
}

#[test]
fn without_a_ref_the_first_column_example_finds_the_record() {
    let dom = Tree::parse(TABLE);
    let shape = learn(&dom, None, &spec(&[("price", "€31"), ("name", "Steel “Pro” Kettle")]))
        .expect("shape");
    let (_, rows, _) = read(&dom, &shape);
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0], vec!["$24.99", "Blue Kettle"]);
}

const CARDS_WITH_ADS: &str = r#"<body><div class="grid"><div class="card"><h3><a href="/p/1">Lamp</a></h3><span class="price">$10</span><span class="rating">4.5</span></div><div class="card ad"><h3>Sponsored: Buy Sofa</h3><span class="price">$999</span></div><div class="card"><h3><a href="/p/2">Desk</a></h3><span class="rating">3.9</span><span class="price">$120</span></div><div class="banner">Sale!</div><div class="card"><h3><a href="/p/3">Chair</a></h3><span class="price">$45</span></div><div class="card"><p>Promoted</p></div><div class="card" hidden=""><h3><a href="/p/x">Template</a></h3><span class="price">$0</span></div></div></body>"#;

#[test]
fn cards_are_read_and_items_of_another_shape_skipped() {
    let dom = Tree::parse(CARDS_WITH_ADS);
    let anchor = dom.first("a", "Lamp");
    let s = spec(&[("name", "Lamp"), ("price", "$10"), ("rating", "4.5")]);
    let shape = learn(&dom, Some(anchor), &s).expect("shape");
    assert_eq!(shape.record.classes, vec!["card"]);
    let (records, rows, skipped) = read(&dom, &shape);
    assert_eq!(records.len(), 3);
    // Desk's spans come in another order: each is found by its shape, not its position.
    assert_eq!(
        rows,
        vec![vec!["Lamp", "$10", "4.5"], vec!["Desk", "$120", "3.9"], vec!["Chair", "$45", ""],]
    );
    // The ad card, the banner, and the promoted card without the columns.
    assert_eq!(skipped, 3);
}

#[test]
fn an_example_the_record_does_not_show_is_named() {
    let dom = Tree::parse(TABLE);
    let anchor = dom.first("a", "Red Kettle");
    let err = learn(&dom, Some(anchor), &spec(&[("name", "Red Kettle"), ("colour", "mauve")]))
        .expect_err("no mauve");
    assert!(matches!(err, CollectError::ExampleNotFound { ref column, .. } if column == "colour"));
    assert_eq!(learn(&dom, None, &spec(&[])), Err(CollectError::NoColumns));
}

#[test]
fn pagers_are_found_by_kind_and_never_inside_a_record() {
    let inside = |_: &usize| false;
    let next = Tree::parse(
        r#"<body><ul><li>a</li></ul><nav><a href="?p=1">Previous</a><a href="?p=3">Next ›</a></nav></body>"#,
    );
    let (kind, node, _) = find_pager(&next, &inside).expect("pager");
    assert_eq!(kind, PagerKind::Next);
    assert_eq!(node, Some(next.first("a", "Next ›")));

    let numbers = Tree::parse(
        r#"<body><nav><a href="?p=1">1</a><span aria-current="page">2</span><a href="?p=3">3</a></nav></body>"#,
    );
    let (kind, node, _) = find_pager(&numbers, &inside).expect("pager");
    assert_eq!((kind, node), (PagerKind::Number, Some(numbers.first("a", "3"))));

    let more = Tree::parse(r#"<body><button>Load more products</button></body>"#);
    assert_eq!(find_pager(&more, &inside).map(|p| p.0), Some(PagerKind::LoadMore));

    let last = Tree::parse(
        r#"<body><nav><a href="?p=2">Previous</a><button disabled="">Next</button></nav></body>"#,
    );
    assert_eq!(find_pager(&last, &inside), None);

    let mut endless = Tree::parse(r#"<body><div>rows</div></body>"#);
    endless.more_below = true;
    assert_eq!(find_pager(&endless, &inside).map(|p| p.0), Some(PagerKind::Scroll));

    let carousel = Tree::parse(r#"<body><div class="card"><a href="/p">›</a></div></body>"#);
    let in_card = |n: &usize| carousel.parent(n).is_some_and(|p| carousel.tag(&p) == "div");
    assert_eq!(find_pager(&carousel, &in_card), None);
}

#[test]
fn the_spec_reads_as_the_model_writes_it() {
    let s: CollectSpec = serde_json::from_str(
        r#"{"ref": "f2:7", "columns": [{"name": "name", "example": "Lamp"}], "pages": 900}"#,
    )
    .expect("spec");
    assert_eq!(s.record, Some(Ref { frame: 2, index: 7 }));
    assert_eq!(s.page_budget(), MAX_PAGES);
    assert_eq!(spec(&[]).page_budget(), DEFAULT_PAGES);
}
