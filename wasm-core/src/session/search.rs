//! Search within a session and across all sessions: an inverted index over every turn's task,
//! TOC line, summary, data and answer, ranked by how many query words match and how strongly,
//! with a snippet around the match and the turn to jump to.
//!
//! An index rather than a scan: the side panel searches as the user types across every stored
//! session (a thousand sessions of fifty tasks must answer in milliseconds).

use super::{Session, TaskRecord};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};

/// Query words shorter than this match only whole words; longer ones also match as prefixes.
const PREFIX_MIN: usize = 3;

/// Characters of context around the match in a snippet.
const SNIPPET_CONTEXT: usize = 60;

/// One search result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SearchHit {
    /// The session it is in.
    pub session_id: String,
    /// That session's title.
    pub session_title: String,
    /// The turn to jump to.
    pub turn: u32,
    /// Text around the match.
    pub snippet: String,
    /// Query words matched (higher ranks first).
    pub matched: u32,
    /// Weighted score among hits with the same number of matched words.
    pub score: f32,
}

/// Documents containing a term, with the term's weight in each.
type Postings = Vec<(u32, f32)>;

struct Doc {
    session: u32,
    turn: u32,
    created_ms: f64,
    text: String,
    live: bool,
}

/// The index: turns of any number of sessions.
#[derive(Default)]
pub struct SearchIndex {
    sessions: Vec<String>,
    titles: Vec<String>,
    session_ix: HashMap<String, u32>,
    docs: Vec<Doc>,
    by_turn: HashMap<(u32, u32), u32>,
    terms: HashMap<String, Postings>,
    /// The same words in order, for prefix matches (a word is added once, however many turns
    /// use it: building the index stays fast).
    vocabulary: BTreeSet<String>,
}

impl SearchIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of live turns indexed.
    pub fn len(&self) -> usize {
        self.docs.iter().filter(|d| d.live).count()
    }

    /// Whether nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Indexes every turn of `session` (replacing what was indexed for it).
    pub fn add_session(&mut self, session: &Session) {
        self.set_title(&session.id, &session.display_title());
        for record in &session.records {
            self.upsert(&session.id, record);
        }
    }

    /// Sets the title shown with a session's hits.
    pub fn set_title(&mut self, session_id: &str, title: &str) {
        let ix = self.session(session_id);
        self.titles[ix as usize] = title.to_owned();
    }

    /// Indexes one turn, replacing its earlier version (a turn is re-indexed when its model
    /// summary arrives).
    pub fn upsert(&mut self, session_id: &str, record: &TaskRecord) {
        let session = self.session(session_id);
        if let Some(old) = self.by_turn.remove(&(session, record.turn)) {
            self.docs[old as usize].live = false;
        }
        let doc = self.docs.len() as u32;
        let mut weights: HashMap<&str, f32> = HashMap::new();
        let data: String =
            record.structured_data.iter().map(|(k, v)| format!("{k}: {v}; ")).collect();
        let fields: [(&str, f32); 5] = [
            (&record.task, 3.0),
            (&record.toc_line, 2.0),
            (&record.summary, 2.0),
            (&data, 2.0),
            (&record.answer, 1.0),
        ];
        // Lower-cased once per field; words are slices of it (no allocation per word).
        let lowered: Vec<(String, f32)> =
            fields.iter().map(|(text, weight)| (text.to_lowercase(), *weight)).collect();
        for (text, weight) in &lowered {
            for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
                *weights.entry(word).or_default() += weight;
            }
        }
        for (term, weight) in weights {
            match self.terms.get_mut(term) {
                Some(postings) => postings.push((doc, weight)),
                None => {
                    self.vocabulary.insert(term.to_owned());
                    self.terms.insert(term.to_owned(), vec![(doc, weight)]);
                }
            }
        }
        let text = format!(
            "{} — {} {}{}",
            one_line(&record.task),
            one_line(&record.summary),
            data,
            one_line(&record.answer)
        );
        self.docs.push(Doc {
            session,
            turn: record.turn,
            created_ms: record.created_ms,
            text,
            live: true,
        });
        self.by_turn.insert((session, record.turn), doc);
    }

    /// Forgets a session (deleted by the user).
    pub fn remove_session(&mut self, session_id: &str) {
        let Some(&ix) = self.session_ix.get(session_id) else { return };
        for doc in self.docs.iter_mut().filter(|d| d.session == ix) {
            doc.live = false;
        }
        self.by_turn.retain(|(s, _), _| *s != ix);
    }

    /// The best `limit` hits for `query`, across all sessions or within `only_session`.
    pub fn search(&self, query: &str, only_session: Option<&str>, limit: usize) -> Vec<SearchHit> {
        let query_words: Vec<String> = {
            let mut w = words(query);
            w.sort();
            w.dedup();
            w
        };
        if query_words.is_empty() || limit == 0 {
            return Vec::new();
        }
        let only = match only_session {
            Some(id) => match self.session_ix.get(id) {
                Some(&ix) => Some(ix),
                None => return Vec::new(),
            },
            None => None,
        };
        let mut score = vec![0f32; self.docs.len()];
        let mut matched = vec![0u32; self.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        for word in &query_words {
            let mut seen_for_word: Vec<u32> = Vec::new();
            for (term, postings) in self.matching_terms(word) {
                let factor = if term == word { 1.0 } else { 0.5 };
                for &(doc, weight) in postings {
                    let d = doc as usize;
                    if matched[d] == 0 && score[d] == 0.0 {
                        touched.push(doc);
                    }
                    score[d] += weight * factor;
                    seen_for_word.push(doc);
                }
            }
            seen_for_word.sort_unstable();
            seen_for_word.dedup();
            for doc in seen_for_word {
                matched[doc as usize] += 1;
            }
        }
        let mut hits: Vec<u32> = touched
            .into_iter()
            .filter(|&d| {
                let doc = &self.docs[d as usize];
                doc.live && only.is_none_or(|s| doc.session == s)
            })
            .collect();
        hits.sort_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            matched[b]
                .cmp(&matched[a])
                .then(score[b].total_cmp(&score[a]))
                .then(self.docs[b].created_ms.total_cmp(&self.docs[a].created_ms))
        });
        hits.truncate(limit);
        hits.into_iter()
            .map(|d| {
                let doc = &self.docs[d as usize];
                SearchHit {
                    session_id: self.sessions[doc.session as usize].clone(),
                    session_title: self.titles[doc.session as usize].clone(),
                    turn: doc.turn,
                    snippet: snippet(&doc.text, &query_words),
                    matched: matched[d as usize],
                    score: score[d as usize],
                }
            })
            .collect()
    }

    fn matching_terms<'a>(
        &'a self,
        word: &'a str,
    ) -> Box<dyn Iterator<Item = (&'a String, &'a Postings)> + 'a> {
        if word.chars().count() < PREFIX_MIN {
            return Box::new(self.terms.get_key_value(word).into_iter());
        }
        Box::new(
            self.vocabulary
                .range::<str, _>((std::ops::Bound::Included(word), std::ops::Bound::Unbounded))
                .take_while(move |t| t.starts_with(word))
                .filter_map(|t| self.terms.get_key_value(t.as_str())),
        )
    }

    fn session(&mut self, id: &str) -> u32 {
        if let Some(&ix) = self.session_ix.get(id) {
            return ix;
        }
        let ix = self.sessions.len() as u32;
        self.sessions.push(id.to_owned());
        self.titles.push(String::new());
        self.session_ix.insert(id.to_owned(), ix);
        ix
    }
}

/// Lower-case alphanumeric words.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// About [`SNIPPET_CONTEXT`] characters either side of the first query word found in `text`.
fn snippet(text: &str, query_words: &[String]) -> String {
    let lower: Vec<char> = text.chars().flat_map(char::to_lowercase).collect();
    let chars: Vec<char> = text.chars().collect();
    // Lower-casing can change the length of a few scripts; then the snippet starts at the top.
    let aligned = lower.len() == chars.len();
    let at = query_words
        .iter()
        .filter_map(|w| {
            let w: Vec<char> = w.chars().collect();
            lower.windows(w.len()).position(|win| win == w.as_slice())
        })
        .min()
        .filter(|_| aligned)
        .unwrap_or(0);
    let start = at.saturating_sub(SNIPPET_CONTEXT);
    let end = (at + SNIPPET_CONTEXT * 2).min(chars.len());
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&chars[start..end]);
    if end < chars.len() {
        out.push('…');
    }
    out
}
