//! Every structural problem of a TOML document in one run: unknown keys and values of
//! the wrong type, wherever they are.
//!
//! serde stops at the first problem. When a document fails, each entry of a table (and
//! each item of a list) is deserialised again on its own, inside a copy of the document
//! cut down to the path that leads to it; an entry that fails alone and whose problem lies
//! deeper is searched the same way, down to the key or value at fault. This works for any
//! `Deserialize` type, so a table added to a schema (a new field of `VariantFile`, a new
//! fixture key) gets the same treatment with no code of its own.

use std::ops::Range;

use serde::de::DeserializeOwned;
use toml::Spanned;
use toml::de::{DeArray, DeTable, DeValue};

/// A span no document has. The tables cut down around an entry carry it, so a problem
/// the cutting causes (a field the cut table no longer has) is told apart and dropped.
const CUT: Range<usize> = usize::MAX..usize::MAX;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// The outcome of deserialising a document.
pub(crate) struct Structural<T> {
    /// The value, when it has the document's meaning: the document deserialised, or its
    /// only problems are unknown keys (which mean nothing, so the value without them is
    /// exactly what the file says). `None` otherwise.
    pub value: Option<T>,
    /// Every problem found, as (span, message), sorted by position.
    pub problems: Vec<(Range<usize>, String)>,
    /// With `value`: the spans of the tables that lost an unknown key (and `0..0`, the
    /// document's own place, if the document did). A semantic complaint about one of
    /// these tables as a whole ("checks nothing") would only echo the unknown key, so
    /// callers leave such complaints out.
    pub lost: Vec<Range<usize>>,
}

struct Found {
    path: Vec<Step>,
    span: Range<usize>,
    message: String,
}

fn de<T: DeserializeOwned>(v: Spanned<DeValue<'_>>) -> Result<T, toml::de::Error> {
    let span = v.span();
    let DeValue::Table(t) = v.into_inner() else { unreachable!("a document is a table") };
    T::deserialize(toml::de::Deserializer::from(Spanned::new(span, t)))
}

/// Deserialises `T` from the document and, if that fails, finds every problem in it.
pub(crate) fn deserialize<T: DeserializeOwned>(root: &Spanned<DeTable<'_>>) -> Structural<T> {
    let root = Spanned::new(root.span(), DeValue::Table(root.get_ref().clone()));
    let first = match de::<T>(root.clone()) {
        Ok(v) => return Structural { value: Some(v), problems: Vec::new(), lost: Vec::new() },
        Err(e) => e,
    };
    let mut found = Vec::new();
    isolate::<T>(&root, &mut Vec::new(), &root, &mut found);
    if found.is_empty() {
        // Nothing fails on its own: the document's problem is the document's.
        found.push(Found { path: Vec::new(), span: first.span().unwrap_or(0..0), message: message(&first) });
    }
    let mut lost = Vec::new();
    let value = if found.iter().all(|f| is_unknown_key(&f.message) && !f.path.is_empty()) {
        let mut pruned = root.clone();
        for f in &found {
            let parent = &f.path[..f.path.len() - 1];
            if parent.is_empty() {
                lost.push(0..0);
            }
            lost.push(parent.iter().fold(&root, |node, step| child(node, step)).span());
            remove(&mut pruned, &f.path);
        }
        de::<T>(pruned).ok()
    } else {
        None
    };
    if value.is_none() {
        lost.clear();
    }
    let mut problems: Vec<(Range<usize>, String)> = found.into_iter().map(|f| (f.span, f.message)).collect();
    problems.sort_by(|(a, m), (b, n)| (a.start, m).cmp(&(b.start, n)));
    problems.dedup();
    Structural { value, problems, lost }
}

fn message(e: &toml::de::Error) -> String {
    e.message().trim().to_string()
}

/// serde's message for a key a struct does not have.
fn is_unknown_key(message: &str) -> bool {
    message.starts_with("unknown field `")
}

/// The entries of a table or list: their step, their key's span (tables), their value.
type Entry<'v, 'a> = (Step, Option<Range<usize>>, &'v Spanned<DeValue<'a>>);

fn children<'v, 'a>(v: &'v Spanned<DeValue<'a>>) -> Vec<Entry<'v, 'a>> {
    match v.get_ref() {
        DeValue::Table(t) => t.iter().map(|(k, v)| (Step::Key(k.get_ref().to_string()), Some(k.span()), v)).collect(),
        DeValue::Array(a) => a.iter().enumerate().map(|(i, v)| (Step::Index(i), None, v)).collect(),
        _ => Vec::new(),
    }
}

/// Finds the problems under `node`, the table or list at `path` in `root`.
fn isolate<T: DeserializeOwned>(
    root: &Spanned<DeValue<'_>>,
    path: &mut Vec<Step>,
    node: &Spanned<DeValue<'_>>,
    found: &mut Vec<Found>,
) {
    let mut failing: Vec<Step> = Vec::new();
    for (step, key_span, child) in children(node) {
        let Err(e) = de::<T>(cut(root, path, &Keep::Only(&step))) else { continue };
        let span = match e.span() {
            Some(s) if s == CUT => continue,
            Some(s) => s,
            None => 0..0,
        };
        failing.push(step.clone());
        path.push(step);
        let before = found.len();
        // A problem at the entry's key or whole value is the entry's; any other lies
        // within it. (Spans cannot tell more: a `[table]`'s span is its header.)
        let deeper = span != child.span() && Some(&span) != key_span.as_ref();
        if deeper && !children(child).is_empty() {
            isolate::<T>(root, path, child, found);
        }
        if found.len() == before {
            found.push(Found { path: path.clone(), span, message: message(&e) });
        }
        path.pop();
    }
    // A table's own problem (a required key missing), with its failing entries left out.
    // Not for lists: without an item, a list is another list (a pair becomes a single).
    if failing.is_empty() || !matches!(node.get_ref(), DeValue::Table(_)) {
        return;
    }
    let Err(e) = de::<T>(cut(root, path, &Keep::AllBut(&failing))) else { return };
    let Some(span) = e.span().filter(|s| *s != CUT) else { return };
    let m = message(&e);
    // A key missing because it failed, or because it is misspelt (`descripton` is
    // reported unknown, with `description` suggested), is not reported again.
    let missing = m.strip_prefix("missing field `").and_then(|r| r.split('`').next());
    let echoes = missing.is_some_and(|k| {
        failing.iter().any(|s| match s {
            Step::Key(u) => {
                u == k
                    || found.iter().any(|f| {
                        f.path.len() == path.len() + 1
                            && f.path.last() == Some(s)
                            && is_unknown_key(&f.message)
                            && crate::suggest::nearest(u, [k]).is_some()
                    })
            }
            Step::Index(_) => false,
        })
    });
    if !echoes && !found.iter().any(|f| f.span == span && f.message == m) {
        found.push(Found { path: path.clone(), span, message: m });
    }
}

enum Keep<'s> {
    /// Only this entry, in a container with the `CUT` span.
    Only(&'s Step),
    /// Every entry but these, in the container as it was.
    AllBut(&'s [Step]),
}

fn child<'v, 'a>(v: &'v Spanned<DeValue<'a>>, step: &Step) -> &'v Spanned<DeValue<'a>> {
    match (v.get_ref(), step) {
        (DeValue::Table(t), Step::Key(k)) => t.get(k.as_str()).expect("a path into the document"),
        (DeValue::Array(a), Step::Index(i)) => &a[*i],
        _ => unreachable!("a path into the document"),
    }
}

/// The container `v` with only the entry at `step`, holding `value`.
fn with_only<'a>(v: &Spanned<DeValue<'a>>, step: &Step, value: Spanned<DeValue<'a>>) -> DeValue<'a> {
    match (v.get_ref(), step) {
        (DeValue::Table(t), Step::Key(k)) => {
            let (key, _) = t.get_key_value(k.as_str()).expect("a path into the document");
            let mut out = DeTable::new();
            out.insert(key.clone(), value);
            DeValue::Table(out)
        }
        (DeValue::Array(_), Step::Index(_)) => DeValue::Array(std::iter::once(value).collect::<DeArray>()),
        _ => unreachable!("a path into the document"),
    }
}

/// A copy of the document with, along `path`, only the entries that lead to the
/// container at `path`, which keeps what `keep` says.
fn cut<'a>(v: &Spanned<DeValue<'a>>, path: &[Step], keep: &Keep) -> Spanned<DeValue<'a>> {
    match path.split_first() {
        Some((step, rest)) => Spanned::new(CUT, with_only(v, step, cut(child(v, step), rest, keep))),
        None => match keep {
            Keep::Only(step) => Spanned::new(CUT, with_only(v, step, child(v, step).clone())),
            Keep::AllBut(steps) => {
                let inner = match v.get_ref() {
                    DeValue::Table(t) => DeValue::Table(
                        t.iter()
                            .filter(|(k, _)| !steps.contains(&Step::Key(k.get_ref().to_string())))
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                    ),
                    other => other.clone(),
                };
                Spanned::new(v.span(), inner)
            }
        },
    }
}

/// Removes the entry at `path` (a key of a table).
fn remove(v: &mut Spanned<DeValue<'_>>, path: &[Step]) {
    let Some((last, parents)) = path.split_last() else { return };
    let mut node = v;
    for step in parents {
        node = match (node.get_mut(), step) {
            (DeValue::Table(t), Step::Key(k)) => t.get_mut(k.as_str()).expect("a path into the document"),
            (DeValue::Array(a), Step::Index(i)) => &mut a.as_mut()[*i],
            _ => unreachable!("a path into the document"),
        };
    }
    if let (DeValue::Table(t), Step::Key(k)) = (node.get_mut(), last) {
        t.remove(k.as_str());
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Doc {
        a: A,
        #[serde(default)]
        b: std::collections::BTreeMap<String, B>,
        #[serde(default)]
        c: Vec<B>,
        d: Option<u32>,
    }
    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct A {
        x: u32,
        #[serde(default)]
        y: bool,
    }
    #[derive(Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct B {
        n: u32,
        #[serde(default)]
        pair: Option<crate::variant::schema::Pair>,
    }

    fn problems(text: &str) -> (bool, Vec<String>) {
        let root = DeTable::parse(text).unwrap();
        let s = deserialize::<Doc>(&root);
        let lines = s
            .problems
            .iter()
            .map(|(span, m)| {
                let (l, c) = crate::error::line_col(text, span.start);
                format!("{l}:{c}: {}", m.split(',').next().unwrap())
            })
            .collect();
        (s.value.is_some(), lines)
    }

    #[test]
    fn a_good_document_has_no_problem() {
        assert_eq!(problems("[a]\nx = 1\n"), (true, vec![]));
    }

    #[test]
    fn every_failing_entry_is_found_in_every_table() {
        let text = "d = \"three\"\n[a]\nx = \"1\"\nyy = true\n[b.one]\nn = 1\nm = 2\n[b.two]\nn = -1\n\
                    [[c]]\nn = 1\npair = [1, \"x\"]\n[[c]]\nn = 2\npair = [1, 2, 3]\n";
        let (value, lines) = problems(text);
        assert!(!value);
        assert_eq!(
            lines,
            [
                "1:5: invalid type: string \"three\"",
                "3:5: invalid type: string \"1\"",
                "4:1: unknown field `yy`",
                "7:1: unknown field `m`",
                "9:5: invalid value: integer `-1`",
                "12:12: invalid type: string \"x\"",
                "15:8: invalid length 3",
            ]
        );
    }

    #[test]
    fn a_missing_key_is_reported_once_whatever_else_fails() {
        // `a` is missing; `b.one` lacks `n`; the problems of the cut-down copies
        // (`a` missing from each) are not reported again.
        let (_, lines) = problems("[b.one]\npair = [1, 2]\n[b.two]\nn = 1\nq = 1\n");
        assert_eq!(lines, ["1:1: missing field `a`", "1:1: missing field `n`", "5:1: unknown field `q`"]);
        // A failing required table is not reported missing as well.
        let (_, lines) = problems("[a]\nx = true\n");
        assert_eq!(lines, ["2:5: invalid type: boolean `true`"]);
    }

    #[test]
    fn with_only_unknown_keys_the_value_is_the_document_without_them() {
        let root = DeTable::parse("[a]\nx = 5\nz = 1\n[b.one]\nn = 2\nnn = 3\n").unwrap();
        let s = deserialize::<Doc>(&root);
        assert_eq!(s.problems.len(), 2);
        let v = s.value.expect("only unknown keys");
        assert_eq!((v.a.x, v.b["one"].n), (5, 2));
    }
}
