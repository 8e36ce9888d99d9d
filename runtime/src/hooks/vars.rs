//! The rule variables of a game (`game:set` / `game:get`): a persistent ordered map.
//!
//! Every ply's saved state (for undo and rollback) and every clone of a game hold a copy
//! of the variables. A plain map would copy every name and value each time, so a rule
//! that keeps a little more each ply would cost the square of the game's length. Here
//! the map is an AVL tree of shared nodes: a copy is one reference, and a change copies
//! only the nodes on its path (those still shared; a node that only this map holds is
//! changed in place). Names and text values are shared too, so copying a node never
//! copies their bytes.
//!
//! The map also counts the memory it holds ([`Vars::bytes`]), which is what
//! `[scripting] memory_limit_mb` holds the variables to.

use std::cmp::Ordering;
use std::sync::Arc;

use super::Var;

/// The variables of a game, ordered by name (as `str` orders: byte by byte).
#[derive(Clone, Default)]
pub struct Vars {
    root: Link,
    len: usize,
    bytes: usize,
}

type Link = Option<Arc<Node>>;

#[derive(Clone)]
struct Node {
    name: Arc<str>,
    value: Var,
    left: Link,
    right: Link,
    /// Of the subtree rooted here (a leaf is 1). At most about 1.44 log2(len) + 2.
    height: u8,
}

/// What one variable costs besides its name and text: its node and the allocations'
/// headers (an `Arc` keeps two counters before its data).
const ENTRY_BYTES: usize = std::mem::size_of::<Node>() + 2 * std::mem::size_of::<usize>();
const ARC_HEADER: usize = 2 * std::mem::size_of::<usize>();

/// The memory a variable holds: its node, its name and its text.
fn entry_bytes(name_len: usize, value: &Var) -> usize {
    let text = match value {
        Var::Text(t) => ARC_HEADER.saturating_add(t.len()),
        Var::Int(_) | Var::Bool(_) => 0,
    };
    ENTRY_BYTES.saturating_add(ARC_HEADER).saturating_add(name_len).saturating_add(text)
}

impl Vars {
    pub fn new() -> Vars {
        Vars::default()
    }

    pub fn get(&self, name: &str) -> Option<&Var> {
        let mut link = &self.root;
        while let Some(n) = link {
            link = match name.cmp(&n.name) {
                Ordering::Less => &n.left,
                Ordering::Greater => &n.right,
                Ordering::Equal => return Some(&n.value),
            };
        }
        None
    }

    /// How many variables there are.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The memory these variables hold, in bytes (names, text, and a node each): what
    /// counts against `[scripting] memory_limit_mb`. Old values kept only by the history
    /// (for undo) are not counted: they are the history's, not the rules'.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// What [`Vars::bytes`] would be after `set(name, value)`.
    pub fn bytes_after(&self, name: &str, value: Option<&Var>) -> usize {
        let old = self.get(name).map_or(0, |v| entry_bytes(name.len(), v));
        let new = value.map_or(0, |v| entry_bytes(name.len(), v));
        self.bytes.saturating_sub(old).saturating_add(new)
    }

    /// Keeps `value` under `name` (`None` deletes it); returns the value it replaces.
    pub fn set(&mut self, name: &str, value: Option<Var>) -> Option<Var> {
        match value {
            Some(v) => self.insert(name, v),
            None => self.remove(name),
        }
    }

    /// Keeps `value` under `name`; returns the value it replaces.
    pub fn insert(&mut self, name: &str, value: Var) -> Option<Var> {
        self.bytes = self.bytes_after(name, Some(&value));
        let old = insert(&mut self.root, name, value);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    /// Deletes `name`; returns its value.
    pub fn remove(&mut self, name: &str) -> Option<Var> {
        // Looked up first: removing a missing name must not copy the shared path to it.
        self.get(name)?;
        self.bytes = self.bytes_after(name, None);
        self.len -= 1;
        remove(&mut self.root, name).map(|(_, v)| v)
    }

    /// The variables in name order.
    pub fn iter(&self) -> Iter<'_> {
        let mut it = Iter { stack: Vec::new() };
        it.descend(&self.root);
        it
    }
}

/// The variables of a [`Vars`] in name order.
pub struct Iter<'a> {
    /// The nodes still to visit, the next on top; each one's left side is done.
    stack: Vec<&'a Node>,
}

impl<'a> Iter<'a> {
    fn descend(&mut self, mut link: &'a Link) {
        while let Some(n) = link {
            self.stack.push(n);
            link = &n.left;
        }
    }
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a str, &'a Var);
    fn next(&mut self) -> Option<Self::Item> {
        let n = self.stack.pop()?;
        self.descend(&n.right);
        Some((&n.name, &n.value))
    }
}

impl<'a> IntoIterator for &'a Vars {
    type Item = (&'a str, &'a Var);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl PartialEq for Vars {
    fn eq(&self, other: &Vars) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for Vars {}

impl std::fmt::Debug for Vars {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'a> FromIterator<(&'a str, Var)> for Vars {
    fn from_iter<I: IntoIterator<Item = (&'a str, Var)>>(iter: I) -> Vars {
        let mut vars = Vars::new();
        for (name, value) in iter {
            vars.insert(name, value);
        }
        vars
    }
}

fn height(link: &Link) -> u8 {
    link.as_ref().map_or(0, |n| n.height)
}

fn fix_height(n: &mut Node) {
    n.height = 1 + height(&n.left).max(height(&n.right));
}

/// The node of a link that is known to be there, to change (copied first if shared).
fn node(link: &mut Link) -> &mut Node {
    Arc::make_mut(link.as_mut().expect("a link known to hold a node"))
}

/// `link` holds x with a left child y; afterwards it holds y, with x as its right child.
fn rotate_right(link: &mut Link) {
    let mut x = link.take().expect("a link known to hold a node");
    let mut y = Arc::make_mut(&mut x).left.take().expect("a left child to rotate up");
    let xm = Arc::make_mut(&mut x);
    let ym = Arc::make_mut(&mut y);
    xm.left = ym.right.take();
    fix_height(xm);
    ym.right = Some(x);
    fix_height(ym);
    *link = Some(y);
}

/// The mirror of [`rotate_right`].
fn rotate_left(link: &mut Link) {
    let mut x = link.take().expect("a link known to hold a node");
    let mut y = Arc::make_mut(&mut x).right.take().expect("a right child to rotate up");
    let xm = Arc::make_mut(&mut x);
    let ym = Arc::make_mut(&mut y);
    xm.right = ym.left.take();
    fix_height(xm);
    ym.left = Some(x);
    fix_height(ym);
    *link = Some(y);
}

/// Restores the AVL balance at `link` after one of its subtrees changed height by one.
fn rebalance(link: &mut Link) {
    let n = node(link);
    fix_height(n);
    let balance = |l: &Link| l.as_ref().map_or(0, |n| height(&n.left) as i16 - height(&n.right) as i16);
    let here = height(&n.left) as i16 - height(&n.right) as i16;
    if here > 1 {
        if balance(&n.left) < 0 {
            rotate_left(&mut n.left);
        }
        rotate_right(link);
    } else if here < -1 {
        if balance(&n.right) > 0 {
            rotate_right(&mut n.right);
        }
        rotate_left(link);
    }
}

fn insert(link: &mut Link, name: &str, value: Var) -> Option<Var> {
    let Some(arc) = link else {
        *link = Some(Arc::new(Node { name: name.into(), value, left: None, right: None, height: 1 }));
        return None;
    };
    let n = Arc::make_mut(arc);
    let old = match name.cmp(&n.name) {
        Ordering::Less => insert(&mut n.left, name, value),
        Ordering::Greater => insert(&mut n.right, name, value),
        Ordering::Equal => return Some(std::mem::replace(&mut n.value, value)),
    };
    if old.is_none() {
        rebalance(link);
    }
    old
}

/// Removes `name`, which must be there; returns its entry.
fn remove(link: &mut Link, name: &str) -> Option<(Arc<str>, Var)> {
    let n = node(link);
    let removed = match name.cmp(&n.name) {
        Ordering::Less => remove(&mut n.left, name),
        Ordering::Greater => remove(&mut n.right, name),
        Ordering::Equal => {
            let entry = (n.name.clone(), n.value.clone());
            match (n.left.take(), n.right.take()) {
                (None, child) | (child, None) => {
                    *link = child;
                    return Some(entry);
                }
                (left, right) => {
                    n.left = left;
                    n.right = right;
                    // The next name in order takes this node's place.
                    let (next_name, next_value) = remove_first(&mut n.right);
                    n.name = next_name;
                    n.value = next_value;
                    Some(entry)
                }
            }
        }
    };
    rebalance(link);
    removed
}

/// Removes the first entry under `link`, which holds a node.
fn remove_first(link: &mut Link) -> (Arc<str>, Var) {
    let n = node(link);
    if n.left.is_none() {
        let entry = (n.name.clone(), n.value.clone());
        *link = n.right.take();
        return entry;
    }
    let entry = remove_first(&mut n.left);
    rebalance(link);
    entry
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::rng::Rng;

    /// Checks the AVL invariants under `link`; returns its height.
    fn check(link: &Link, low: Option<&str>, high: Option<&str>) -> u8 {
        let Some(n) = link else { return 0 };
        assert!(low.is_none_or(|l| l < &*n.name) && high.is_none_or(|h| &*n.name < h), "order at {}", n.name);
        let (l, r) = (check(&n.left, low, Some(&n.name)), check(&n.right, Some(&n.name), high));
        assert!(l.abs_diff(r) <= 1, "balance at {}: {l} vs {r}", n.name);
        assert_eq!(n.height, 1 + l.max(r), "height at {}", n.name);
        n.height
    }

    fn bytes_of(m: &BTreeMap<String, Var>) -> usize {
        m.iter().map(|(k, v)| entry_bytes(k.len(), v)).sum()
    }

    #[test]
    fn it_behaves_as_an_ordered_map_and_old_copies_never_change() {
        let mut rng = Rng::new(10);
        let mut vars = Vars::new();
        let mut model: BTreeMap<String, Var> = BTreeMap::new();
        // Every 50th version, kept with what it held then.
        let mut versions: Vec<(Vars, BTreeMap<String, Var>)> = Vec::new();
        for step in 0..6000u64 {
            let name = format!("v{}", rng.below(400));
            let value = match rng.below(4) {
                0 => None,
                1 => Some(Var::Int(rng.next_u64() as i64)),
                2 => Some(Var::Bool(rng.below(2) == 1)),
                _ => Some(Var::Text("x".repeat(rng.below(40) as usize).into())),
            };
            let expected = match &value {
                Some(v) => model.insert(name.clone(), v.clone()),
                None => model.remove(&name),
            };
            assert_eq!(vars.set(&name, value), expected, "step {step}: the replaced value of {name}");
            assert_eq!(vars.len(), model.len());
            assert_eq!(vars.bytes(), bytes_of(&model), "step {step}: bytes");
            if step % 50 == 0 {
                versions.push((vars.clone(), model.clone()));
            }
        }
        check(&vars.root, None, None);
        let listed: Vec<(String, Var)> = vars.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        assert_eq!(listed, model.into_iter().collect::<Vec<_>>());
        for (i, (v, m)) in versions.iter().enumerate() {
            check(&v.root, None, None);
            let listed: Vec<(&str, &Var)> = v.iter().collect();
            let want: Vec<(&str, &Var)> = m.iter().map(|(k, v)| (k.as_str(), v)).collect();
            assert_eq!(listed, want, "version {i} changed after it was copied");
            assert_eq!(v.bytes(), bytes_of(m));
            for (k, val) in m {
                assert_eq!(v.get(k), Some(val));
            }
        }
    }

    #[test]
    fn names_in_order_keep_the_tree_shallow() {
        // Ascending names are a plain binary tree's worst case: here the height stays
        // within the AVL bound, 1.44 log2(n + 2).
        let mut vars = Vars::new();
        for i in 0..100_000 {
            vars.insert(&format!("{i:08}"), Var::Int(i));
        }
        let h = check(&vars.root, None, None);
        assert!(f64::from(h) <= 1.44 * (100_002f64).log2(), "height {h}");
        for i in (0..100_000).step_by(2) {
            assert_eq!(vars.remove(&format!("{i:08}")), Some(Var::Int(i)));
        }
        check(&vars.root, None, None);
        assert_eq!(vars.len(), 50_000);
        assert_eq!(vars.iter().next(), Some(("00000001", &Var::Int(1))));
    }

    #[test]
    fn a_copy_shares_the_values_and_a_change_copies_only_its_path() {
        let mut vars = Vars::new();
        for i in 0..1000 {
            vars.insert(&format!("k{i:04}"), Var::Text("y".repeat(100).into()));
        }
        let copy = vars.clone();
        vars.insert("k0500", Var::Int(1));
        // The text of every other name is the same allocation in both.
        let same = |name: &str| match (vars.get(name), copy.get(name)) {
            (Some(Var::Text(a)), Some(Var::Text(b))) => Arc::ptr_eq(a, b),
            _ => false,
        };
        assert!(same("k0000") && same("k0999") && same("k0499"));
        assert_eq!(copy.get("k0500"), Some(&Var::Text("y".repeat(100).into())));
        // Nodes shared between the two: all but the path to k0500 (at most the height).
        fn nodes(link: &Link, out: &mut Vec<*const Node>) {
            if let Some(n) = link {
                out.push(Arc::as_ptr(n));
                nodes(&n.left, out);
                nodes(&n.right, out);
            }
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        nodes(&vars.root, &mut a);
        nodes(&copy.root, &mut b);
        let fresh = a.iter().filter(|p| !b.contains(p)).count();
        assert!(fresh <= height(&vars.root) as usize, "{fresh} nodes copied for one change");
        // Removing a name that is not there copies nothing.
        let before = Arc::as_ptr(vars.root.as_ref().unwrap());
        let mut again = vars.clone();
        assert_eq!(again.remove("missing"), None);
        assert!(std::ptr::eq(Arc::as_ptr(again.root.as_ref().unwrap()), before));
    }

    #[test]
    fn bytes_count_names_text_and_nodes() {
        let mut vars = Vars::new();
        vars.insert("a", Var::Int(1));
        assert_eq!(vars.bytes(), ENTRY_BYTES + ARC_HEADER + 1);
        vars.insert("name", Var::Text("0123456789".into()));
        assert_eq!(vars.bytes(), 2 * (ENTRY_BYTES + ARC_HEADER) + 1 + 4 + ARC_HEADER + 10);
        assert_eq!(vars.bytes_after("name", None), ENTRY_BYTES + ARC_HEADER + 1);
        assert_eq!(vars.bytes_after("a", Some(&Var::Bool(true))), vars.bytes());
        vars.set("name", None);
        vars.set("a", None);
        assert_eq!(vars.bytes(), 0);
        assert!(vars.is_empty());
    }
}
