//! The scorers' regular expressions: the `regex` crate's syntax and its
//! leftmost-first matches, searched by `regex-automata`'s bounded
//! backtracker, or by its PikeVM when a haystack is too long for the
//! backtracker's memory bound.
//!
//! **Decision** (issue #46, no route of the page above 1.27 MiB): not
//! `regex::Regex`. It chooses among more engines at run time (a lazy DFA, a
//! one-pass DFA, literal prefilters with `aho-corasick`), so every one of
//! them is linked wherever a regex is searched, whatever the pattern: in the
//! page, the scorers' shared regex chunk was 805 KB (281 KB gzipped), and is
//! 516 KB (171 KB) with these two engines (docs/performance.md, "What each
//! route downloads"). Which engine runs changes how fast a search is, never
//! what it finds: both engines here and `regex::Regex` give the same spans
//! and groups for the same pattern. The tests below compare them on the
//! scorers' patterns and the constructs they use; the official fixtures'
//! parity tests run every pattern. The replies the scorers read are short,
//! where the backtracker is quick.

use std::borrow::Cow;
use std::fmt;
use std::panic::{RefUnwindSafe, UnwindSafe};

use regex_automata::nfa::thompson;
use regex_automata::nfa::thompson::backtrack::{self, BoundedBacktracker};
use regex_automata::nfa::thompson::pikevm::{self, PikeVM};
use regex_automata::util::captures::Captures as Slots;
use regex_automata::util::iter::Searcher;
use regex_automata::util::pool::Pool;
use regex_automata::Input;

/// A compiled pattern ([`Regex::new`]).
pub struct Regex {
    backtrack: BoundedBacktracker,
    pike: PikeVM,
    caches: Pool<Cache, CacheFn>,
}

/// What a search needs besides the pattern: one per thread at a time.
struct Cache {
    backtrack: backtrack::Cache,
    pike: pikevm::Cache,
}

type CacheFn = Box<dyn Fn() -> Cache + Send + Sync + UnwindSafe + RefUnwindSafe>;

/// Why a pattern does not compile.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl Error {
    /// A build error with the syntax error under it (where and what), as
    /// `regex::Error` shows it.
    fn of(error: thompson::BuildError) -> Error {
        use std::error::Error as _;
        match error.source() {
            Some(cause) => Error(format!("{error}: {cause}")),
            None => Error(error.to_string()),
        }
    }
}

/// The compiled program's bound, as `regex::RegexBuilder::size_limit` (the
/// largest the scorers set: FineState-Bench's patterns with their Unicode
/// classes).
const SIZE_LIMIT: usize = 1 << 24;

impl Regex {
    /// Compiles `pattern` with the `regex` crate's defaults: Unicode,
    /// UTF-8 haystacks, every group captured.
    pub fn new(pattern: &str) -> Result<Regex, Error> {
        let nfa = thompson::Compiler::new()
            .configure(thompson::Config::new().nfa_size_limit(Some(SIZE_LIMIT)))
            .build(pattern)
            .map_err(Error::of)?;
        let backtrack = BoundedBacktracker::builder()
            .build_from_nfa(nfa.clone())
            .map_err(Error::of)?;
        let pike = PikeVM::builder().build_from_nfa(nfa).map_err(Error::of)?;
        let (b, p) = (backtrack.clone(), pike.clone());
        let create: CacheFn = Box::new(move || Cache {
            backtrack: b.create_cache(),
            pike: p.create_cache(),
        });
        Ok(Regex {
            backtrack,
            pike,
            caches: Pool::new(create),
        })
    }

    /// Whether the pattern matches anywhere in `haystack`.
    pub fn is_match(&self, haystack: &str) -> bool {
        self.find_at(haystack, 0).is_some()
    }

    /// The first match at or after byte `start` (look-arounds see the text
    /// before it), as `regex::Regex::find_at`; none past the haystack's end
    /// (where `regex` panics).
    pub fn find_at<'h>(&self, haystack: &'h str, start: usize) -> Option<Match<'h>> {
        if start > haystack.len() {
            return None;
        }
        let input = Input::new(haystack).range(start..);
        let mut slots = self.pike.create_captures();
        self.search(&mut self.caches.get(), &input, &mut slots);
        slots.get_match().map(|m| Match {
            haystack,
            start: m.start(),
            end: m.end(),
        })
    }

    /// The groups of the first match.
    pub fn captures<'h>(&self, haystack: &'h str) -> Option<Captures<'h>> {
        let mut slots = self.pike.create_captures();
        self.search(&mut self.caches.get(), &Input::new(haystack), &mut slots);
        slots.is_match().then_some(Captures { haystack, slots })
    }

    /// The groups of every match, left to right, none overlapping (an empty
    /// match right after another is skipped, as `regex` does).
    pub fn captures_iter<'h>(&self, haystack: &'h str) -> std::vec::IntoIter<Captures<'h>> {
        let mut cache = self.caches.get();
        let mut searcher = Searcher::new(Input::new(haystack));
        let mut found = Vec::new();
        loop {
            let mut slots = self.pike.create_captures();
            let matched = searcher.advance(|input| {
                self.search(&mut cache, input, &mut slots);
                Ok(slots.get_match())
            });
            if matched.is_none() {
                break;
            }
            found.push(Captures { haystack, slots });
        }
        found.into_iter()
    }

    /// Every match, left to right ([`Regex::captures_iter`]'s whole matches).
    pub fn find_iter<'h>(&self, haystack: &'h str) -> impl Iterator<Item = Match<'h>> {
        self.captures_iter(haystack).filter_map(|c| c.get(0))
    }

    /// `haystack` with every match replaced, as `regex::Regex::replace_all`:
    /// by a template (`$1`, `${name}`, `$$` for a dollar) or by what a
    /// function makes of the match's groups.
    pub fn replace_all<'h, R: Replacer>(&self, haystack: &'h str, mut with: R) -> Cow<'h, str> {
        let mut matches = self.captures_iter(haystack).peekable();
        if matches.peek().is_none() {
            return Cow::Borrowed(haystack);
        }
        let mut out = String::with_capacity(haystack.len());
        let mut last = 0;
        for caps in matches {
            let Some(whole) = caps.get(0) else {
                continue;
            };
            out.push_str(&haystack[last..whole.start]);
            with.append(&caps, &mut out);
            last = whole.end;
        }
        out.push_str(&haystack[last..]);
        Cow::Owned(out)
    }

    /// One leftmost-first search, by the backtracker when the haystack is
    /// within its memory bound, else by the PikeVM (the same matches).
    fn search(&self, cache: &mut Cache, input: &Input<'_>, slots: &mut Slots) {
        if self
            .backtrack
            .try_search(&mut cache.backtrack, input, slots)
            .is_err()
        {
            self.pike.search(&mut cache.pike, input, slots);
        }
    }
}

impl fmt::Debug for Regex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Regex").finish_non_exhaustive()
    }
}

/// A match: where it is in its haystack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match<'h> {
    haystack: &'h str,
    start: usize,
    end: usize,
}

impl<'h> Match<'h> {
    /// The matched text.
    pub fn as_str(&self) -> &'h str {
        &self.haystack[self.start..self.end]
    }

    /// Its first byte's offset.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The offset after its last byte.
    pub fn end(&self) -> usize {
        self.end
    }
}

/// A match's groups (group 0: the whole match).
#[derive(Debug, Clone)]
pub struct Captures<'h> {
    haystack: &'h str,
    slots: Slots,
}

impl<'h> Captures<'h> {
    /// Group `index`, if it took part in the match.
    pub fn get(&self, index: usize) -> Option<Match<'h>> {
        self.slots.get_group(index).map(|span| Match {
            haystack: self.haystack,
            start: span.start,
            end: span.end,
        })
    }
}

/// What replaces a match in [`Regex::replace_all`].
pub trait Replacer {
    /// Appends the replacement of the match `caps` to `out`.
    fn append(&mut self, caps: &Captures<'_>, out: &mut String);
}

/// A template: `$1`, `${1}` or `${name}` for a group, `$$` for a dollar.
impl Replacer for &str {
    fn append(&mut self, caps: &Captures<'_>, out: &mut String) {
        caps.slots.interpolate_string_into(caps.haystack, self, out);
    }
}

/// A function of the match's groups.
impl<F, T> Replacer for F
where
    F: FnMut(&Captures<'_>) -> T,
    T: AsRef<str>,
{
    fn append(&mut self, caps: &Captures<'_>, out: &mut String) {
        out.push_str(self(caps).as_ref());
    }
}

#[cfg(test)]
mod tests;
