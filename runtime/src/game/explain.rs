//! Why an action is refused, in a player's words: the piece, its turn, frozen or
//! waiting pieces, castling rights, and which part of the piece's movement fails and how
//! (a blocked way, an own piece, a capture-only step onto an empty square, a kind it
//! never captures, an attack silenced by an adjacent enemy, a region it moves from).

use super::Game;
use crate::action::Action;
use crate::geometry::{Offset, Square};
use crate::movegen::tables::walk;
use crate::notation::Written;
use crate::piece::{Piece, Side};
use crate::variant::Shape;

impl Game {
    /// Why the written action is not among `legal` (the legal actions here), in a
    /// player's words: its squares or kinds, its landing choice, or the move itself.
    pub(super) fn refusal(&self, w: &Written, legal: &[Action]) -> String {
        let v = &self.variant;
        let g = v.geometry;
        let off = [w.from, w.to].into_iter().chain(w.landing).find(|s| s.index() >= g.len());
        if let Some(s) = off {
            return format!("square number {} is off the {}×{} board", s.0, g.files, g.ranks);
        }
        if let Some(k) = w.promotion.filter(|k| k.index() >= v.kinds.len()) {
            return format!("kind number {} is not a kind of {}", k.0, v.name);
        }
        if w.drop {
            return self.explain_drop(w, legal);
        }
        let same: Vec<&Action> = legal.iter().filter(|a| w.names(a)).collect();
        if let (Some(l), false) = (w.landing, same.is_empty()) {
            let at = v.square_name(l);
            let mut offered: Vec<String> =
                same.iter().filter_map(|a| a.landing).map(|s| format!("@{}", v.square_name(s))).collect();
            offered.sort();
            offered.dedup();
            return if offered.is_empty() {
                format!("it needs no landing choice (there is only one way it ends): write it without `@{at}`")
            } else {
                format!("`@{at}` is not where it may land: choose {}", offered.join(" or "))
            };
        }
        if !same.is_empty() {
            // The same squares and choices, yet another action (a value built by hand).
            return "it is not the legal action between these squares (read the text with parse_action)".into();
        }
        self.explain(w.from, w.to, w.promotion)
    }

    /// Why a drop is not legal here: no hands, none of that kind in hand, an occupied
    /// square, a square outside the kind's drop zone, or a check it leaves.
    fn explain_drop(&self, w: &Written, legal: &[Action]) -> String {
        let v = &self.variant;
        let (Some(kind), Some(rule)) = (w.promotion, v.hand()) else {
            return format!("{} has no hands: nothing is ever dropped", v.name);
        };
        let name = &v.kind(kind).name;
        let at = v.square_name(w.to);
        let stm = self.core.to_move();
        if legal.iter().any(|a| w.names(a)) {
            return "it is not the legal drop of this kind on this square (read the text with parse_action)".into();
        }
        if !rule.holds(kind) {
            return format!("a hand never holds a {name}");
        }
        if self.core.setup().hands[stm.index()][kind.index()] == 0 {
            return format!("{stm} has no {name} in hand");
        }
        if let Some(p) = self.core.piece_at(w.to) {
            return format!("{at} holds a {} {}: a drop goes to an empty square", p.side, v.kind(p.kind).name);
        }
        let g = v.geometry;
        if rule.one_per_file.contains(&kind) && setup_has_on_file(&self.core.setup().pieces, kind, stm, g, w.to) {
            return format!(
                "{stm} has a {name} on the {}-file already: a second may not be dropped there (`one_per_file`)",
                (b'a' + g.file(w.to)) as char
            );
        }
        let mut pseudo = Vec::new();
        self.core.pseudo_legal(&mut pseudo);
        if !pseudo.iter().any(|a| w.names(a)) {
            let region = rule.drop_zones.iter().find(|z| z.0 == kind).map(|z| z.1).or(match rule.drop {
                crate::variant::DropZone::Region(r) => Some(r),
                _ => None,
            });
            return match region {
                Some(r) => format!("a {name} may not be dropped on {at}: it drops only on `{}`", v.regions[r].name),
                None if rule.drop == crate::variant::DropZone::Never && rule.gating.is_some() => {
                    format!("a {name} is never dropped: it enters by gating (`/{}` after a move)", v.kind(kind).letter)
                }
                None => format!("a {name} may not be dropped on {at}"),
            };
        }
        if let Some(why) = self.allow_refusal(|a| w.names(a)) {
            return why;
        }
        let core = self.core_actions();
        if core.iter().any(|a| w.names(a)) {
            return "the variant's rules do not allow it here (filter_actions)".into();
        }
        if rule.no_drop_mate.contains(&kind) {
            let after = self.core.after(crate::action::Action::drop(kind, w.to));
            let mut replies = Vec::new();
            after.legal(&mut replies);
            if !after.opponent_in_check() && after.in_check() && replies.is_empty() {
                return format!("a {name} dropped on {at} would give checkmate, which it may not (`no_drop_mate`)");
            }
        }
        let royal = v.kinds.iter().find(|k| k.royal).map_or("royal piece".to_string(), |k| k.name.clone());
        format!("it leaves {stm}'s {royal} in check")
    }

    /// Why moving from `from` to `to` is not legal here, in a player's words.
    pub(super) fn explain(&self, from: Square, to: Square, promotion: Option<crate::piece::KindId>) -> String {
        let v = &self.variant;
        let name = |s: Square| v.square_name(s);
        let Some(piece) = self.core.piece_at(from) else {
            return format!("there is no piece on {}", name(from));
        };
        let kind = &v.kind(piece.kind).name;
        let stm = self.core.to_move();
        if piece.side != stm {
            return format!("the {kind} on {} is {}'s, and it is {stm}'s turn", name(from), piece.side);
        }
        let setup = self.core.setup();
        if setup.frozen.contains(&from) {
            return format!(
                "the {kind} on {} is frozen: it cannot act until its side loses a piece, which it then becomes",
                name(from)
            );
        }
        if setup.waiting.contains(&from) {
            return format!("the {kind} on {} has just returned: it cannot act this turn", name(from));
        }
        let mut pseudo = Vec::new();
        self.core.pseudo_legal(&mut pseudo);
        let same: Vec<&Action> = pseudo.iter().filter(|a| a.from == from && a.to == to).collect();
        if same.is_empty() {
            if let Some(c) =
                v.castling.iter().find(|c| c.side == stm && c.free.is_none() && c.king == from && c.king_to == to)
            {
                let setup = self.core.setup();
                let i = v.castling.iter().position(|x| std::ptr::eq(x, c)).unwrap();
                if setup.castling & (1 << i) == 0 {
                    return format!(
                        "castling {}-{} is no longer allowed (the king or the rook has moved, or the rook was captured)",
                        name(from),
                        name(to)
                    );
                }
                if let Some(&blocked) =
                    c.empty.iter().find(|&&s| s != c.king && s != c.rook && self.core.piece_at(s).is_some())
                {
                    return format!("castling needs {} to be empty", name(blocked));
                }
                let safe: Vec<String> = c.safe.iter().map(|&s| name(s)).collect();
                return format!(
                    "castling needs the king not to stand on, cross or reach an attacked square ({})",
                    safe.join(", ")
                );
            }
            let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
            let why = self.why_unreachable(piece, from, to).map(|r| format!(": {r}")).unwrap_or_default();
            return format!("{article} {kind} on {} cannot move to {}{why}", name(from), name(to));
        }
        if let Some(p) = promotion
            && !same.iter().any(|a| a.promotion == Some(p))
        {
            let options: Vec<String> =
                same.iter().filter_map(|a| a.promotion).map(|k| format!("={}", v.kind(k).letter)).collect();
            return if options.is_empty() {
                format!("a {kind} moving to {} does not promote", name(to))
            } else {
                format!("it cannot promote to {}; choose one of {}", v.kind(p).name, options.join(", "))
            };
        }
        // The core would allow it: a rule took it out of the list.
        if let Some(why) =
            self.allow_refusal(|a| a.from == from && a.to == to && (promotion.is_none() || a.promotion == promotion))
        {
            return why;
        }
        let core = self.core_actions();
        if core.iter().any(|a| a.from == from && a.to == to && (promotion.is_none() || a.promotion == promotion)) {
            let place = v
                .hooks
                .as_ref()
                .and_then(|h| h.place(crate::hooks::Hook::FilterActions))
                .map(|p| format!(", {p}"))
                .unwrap_or_default();
            return format!("the variant's rules do not allow it here (filter_actions{place})");
        }
        if !v.rules.check {
            // Without the check rule nothing else removes a move the pieces can make.
            return "it is not among the legal actions here".into();
        }
        let royal = v.kinds.iter().find(|k| k.royal).map_or("royal piece".to_string(), |k| k.name.clone());
        // With explosions: a blast that would take one of the mover's royal pieces.
        if v.rules.explosion.is_some()
            && let Some(&&a) = same.first()
            && self.core.after(a).royals(stm) < self.core.royals(stm)
        {
            return format!("it would explode your {royal}");
        }
        // Who would take it: a reply that captures a royal piece of the mover's.
        let by = same.first().and_then(|&&a| {
            let next = self.core.after(a);
            let mut replies = Vec::new();
            next.pseudo_legal(&mut replies);
            replies.iter().find_map(|r| {
                let target = next.piece_at(r.to)?;
                if target.side != stm || !v.kind(target.kind).royal {
                    return None;
                }
                let p = next.piece_at(r.from)?;
                Some(format!(" (by the {} {} on {})", p.side, v.kind(p.kind).name, name(r.from)))
            })
        });
        format!("it would leave your {royal} attacked{}", by.unwrap_or_default())
    }

    /// The first reason, over the piece kind's movement atoms that reach `to` from `from`
    /// on an empty board, why that atom does not make the move here; `None` when no atom
    /// reaches `to` (the piece does not move that way at all).
    fn why_unreachable(&self, piece: Piece, from: Square, to: Square) -> Option<String> {
        let v = &self.variant;
        let geo = &v.geometry;
        let name = |s: Square| v.square_name(s);
        let describe = |p: Piece| format!("{} {}", p.side, v.kind(p.kind).name);
        let orient = |(x, y): Offset| if piece.side == Side::White { (x, y) } else { (x, -y) };
        let target = self.core.piece_at(to);
        for atom in &v.kind(piece.kind).atoms {
            // The squares between `from` and `to` along the atom's line, if it gets there.
            let between = atom.vectors.iter().find_map(|&vector| {
                let d = orient(vector);
                let ray = match atom.shape {
                    Shape::Leap => return (geo.offset(from, d) == Some(to)).then(Vec::new),
                    Shape::Slide => walk(*geo, from, d, atom.range),
                    Shape::Farthest => walk(*geo, from, d, 0),
                    // Solo boards only; a two-sided game never has it.
                    Shape::Anywhere => return None,
                    // A hop's screen is not explained: the generic refusal stands.
                    Shape::Hop => return None,
                };
                let at = ray.iter().position(|&s| s == to)?;
                (atom.shape == Shape::Slide || at + 1 == ray.len()).then(|| ray[..at].to_vec())
            });
            let Some(between) = between else { continue };
            if let Some(r) = atom.from
                && !v.regions[r].squares[piece.side.index()].contains(&from)
            {
                return Some(format!("it moves that way only from its `{}` squares", v.regions[r].name));
            }
            if let Some(t) = target
                && t.side == piece.side
            {
                return Some(format!("your own {} stands on {}", v.kind(t.kind).name, name(to)));
            }
            if atom.shape != Shape::Leap
                && let Some(&b) = between.iter().find(|&&s| self.core.piece_at(s).is_some())
            {
                let p = self.core.piece_at(b).expect("occupied");
                return Some(format!("the way is blocked by the {} on {}", describe(p), name(b)));
            }
            let strike = if atom.ranged { "shoot" } else { "capture" };
            match target {
                None if !atom.moves() => {
                    return Some(format!("it goes there only to {strike}, and {} is empty", name(to)));
                }
                Some(t) if !atom.captures() => {
                    return Some(format!(
                        "it goes there only when the square is empty, and the {} stands on {}",
                        describe(t),
                        name(to)
                    ));
                }
                Some(t) if atom.cannot_capture & (1 << t.kind.0) != 0 => {
                    return Some(format!("it can never {strike} a {}", v.kind(t.kind).name));
                }
                Some(_) if atom.silenced_by_adjacent_enemy => {
                    let enemy = geo.squares().find(|&s| {
                        geo.distance(s, from) == 1 && self.core.piece_at(s).is_some_and(|p| p.side != piece.side)
                    });
                    if let Some(e) = enemy {
                        let p = self.core.piece_at(e).expect("occupied");
                        return Some(format!(
                            "it cannot {strike} while an enemy is next to it (the {} on {})",
                            describe(p),
                            name(e)
                        ));
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// Whether `side` has a piece of `kind` on the file of `at`.
fn setup_has_on_file(
    pieces: &[(Square, crate::piece::Piece)],
    kind: crate::piece::KindId,
    side: crate::piece::Side,
    g: crate::geometry::Geometry,
    at: Square,
) -> bool {
    pieces.iter().any(|&(sq, p)| p.kind == kind && p.side == side && g.file(sq) == g.file(at))
}
