//! The compiled rules of a tiled world played with simultaneous orders ([`WorldRules`])
//! and of a reserve ([`ReserveRule`]), built from `[world]` and `[reserve]`
//! (`world_schema.rs`) with every problem reported at its place.
//!
//! The rectangular `[board]` is the *tile*: the world is an unbounded grid of such
//! boards. Movement comes from the kinds' ordinary atoms; only what the world engine
//! cannot interpret (a `farthest` square of an unbounded line, ranged shots, en passant)
//! is refused here.

use std::sync::Arc;

use toml::Spanned;

use super::diagnostics::Diagnostics;
use super::schema::VariantFile;
use super::world_schema::{ReserveSpec, WorldSpec};
use super::{Kind, Region, Shape, TurnModel};
use crate::piece::KindId;

/// One phase of a round's resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Royal pieces placed on conquered boards appear.
    PlaceKings,
    /// Pieces dropped from reserves appear.
    Drops,
    /// Pieces moving by a leap atom hop to their targets (all leave, then all arrive).
    Leaps,
    /// Pieces moving by a slide atom advance one field per micro-step.
    Slides,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::PlaceKings => "place_kings",
            Phase::Drops => "drops",
            Phase::Leaps => "leaps",
            Phase::Slides => "slides",
        }
    }
}

/// The rules of a world of boards (see `scripts/README.md`, "Worlds of boards").
#[derive(Debug, Clone)]
pub struct WorldRules {
    /// The size of one board: files (x) and ranks (y).
    pub tile: (i32, i32),
    pub max_other_boards: u32,
    /// Kinds that never leave their board (bit per kind).
    pub bound: u32,
    pub start_boards: u32,
    /// The pieces of a starting board, at offsets from its lower-left corner.
    pub start: Vec<(KindId, (i32, i32))>,
    pub actions_per_board: u32,
    pub rescue_required: bool,
    pub forced_flee: bool,
    pub auto_place: bool,
    pub phases: Vec<Phase>,
    /// Royal pieces' moves resolve with the slides (else with the leaps).
    pub kings_slide: bool,
    /// A slider's first field is micro-step 1, together with the leaps.
    pub slides_with_leaps: bool,
    pub swap_collision: bool,
    /// Arrival strength, per kind.
    pub strength: Vec<i64>,
    pub bot_after: u32,
    pub claimable_after: u32,
    pub lockout_hours: u32,
    /// The players' reserve (a world variant needs one, even with nothing to hold).
    pub reserve: ReserveRule,
}

/// Where reserve pieces may be dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DropZone {
    /// An empty square of a board (tile) where the player has a piece.
    Presence,
    /// Any empty square.
    Anywhere,
    /// An empty square of this region (its index).
    Region(usize),
    /// Nowhere: held pieces are never dropped (two-sided boards: they enter by gating).
    Never,
}

/// A reserve: pieces held off the board, by kind, with a cap.
#[derive(Debug, Clone)]
pub struct ReserveRule {
    /// The most pieces one reserve holds (0: no cap).
    pub cap: u32,
    /// Kinds it holds (bit per kind).
    pub holds: u32,
    pub drop: DropZone,
    /// A piece taken goes to the taker's reserve.
    pub captured_to_taker: bool,
    /// Two-sided boards: kinds dropped on a region of their own instead of `drop`'s
    /// (the region's index).
    pub drop_zones: Vec<(KindId, usize)>,
    /// Two-sided boards: held pieces may enter by gating (`gating = {…}`).
    pub gating: Option<Gating>,
    /// Two-sided boards: kinds not dropped on a file where their side has one already.
    pub one_per_file: Vec<KindId>,
    /// Two-sided boards: kinds whose drop may not checkmate.
    pub no_drop_mate: Vec<KindId>,
    /// With `no_drop_mate`: such a drop is legal and loses (`drop_mate = "loses"`) instead
    /// of not being listed.
    pub drop_mate_loses: bool,
}

/// Gating (`[reserve] gating`): a piece leaving a square of `region` for the first time
/// (its first move from where it stood at the start, castling included) may bring a held
/// piece of `kinds` onto the square it left, in the same move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gating {
    /// The gating squares' region (its index).
    pub region: usize,
    /// The held kinds that may enter (bit per kind).
    pub kinds: u32,
}

impl ReserveRule {
    pub fn holds(&self, kind: KindId) -> bool {
        self.holds & (1 << kind.0) != 0
    }
}

/// Builds `[reserve]` and `[world]`; problems go to `d`.
pub(crate) fn compile(
    spec: &VariantFile,
    turns: Option<TurnModel>,
    kinds: &[Kind],
    regions: &[Region],
    tile: (i32, i32),
    d: &mut Diagnostics,
) -> (Option<ReserveRule>, Option<Arc<WorldRules>>) {
    let kind_index = |name: &str| kinds.iter().position(|k| k.name == name).map(|i| KindId(i as u8));
    let known = || kinds.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ");
    let mut kind_of = |d: &mut Diagnostics, n: &Spanned<String>| {
        let k = kind_index(n.get_ref());
        if k.is_none() {
            let hint = crate::suggest::did_you_mean(n.get_ref(), kinds.iter().map(|k| k.name.as_str()));
            d.at(n.span(), format!("unknown piece kind `{}`{hint}; known: {}", n.get_ref(), known()));
        }
        k
    };
    let reserve = spec.reserve.as_ref().map(|r| reserve(r, &mut kind_of, regions, d));
    if let (Some(rule), Some(r)) = (&reserve, &spec.reserve)
        && matches!(turns, None | Some(TurnModel::Alternate))
    {
        super::hand::check_two_sided(rule, r, spec.combat.is_some(), &spec.castling, d);
    } else if let Some(r) = &spec.reserve {
        super::hand::check_world(r, d);
    }
    // A simultaneous variant without `[world]` loads, but has no realm to resolve (the
    // realm commands say so).
    let Some(w) = &spec.world else {
        return (reserve, None);
    };
    if turns != Some(TurnModel::Simultaneous) {
        d.at(w.span(), "`[world]` needs turns.model = \"simultaneous\"");
        return (reserve, None);
    }
    let ws: &WorldSpec = w.get_ref();
    // What the world engine cannot interpret over an unbounded grid.
    for ((name, piece), kind) in spec.pieces.iter().zip(kinds) {
        for (m, a) in piece.get_ref().moves.iter().zip(&kind.atoms) {
            let why = if a.shape == Shape::Farthest {
                Some("`farthest` (an unbounded line has no last square)")
            } else if a.shape == Shape::Hop || a.blockable || a.within.is_some() {
                Some("`hop`, `blockable` or `confined`")
            } else if a.ranged {
                Some("capture = \"ranged\"")
            } else if a.creates_en_passant || a.captures_en_passant {
                Some("`en_passant`")
            } else {
                None
            };
            if let Some(why) = why {
                d.at(m.span(), format!("piece `{name}`: {why} is not supported in a world of boards"));
            }
        }
    }
    if *ws.max_other_boards.get_ref() > 8 {
        d.at(ws.max_other_boards.span(), "`max_other_boards` is 0 to 8");
    }
    let mut bound = 0u32;
    for n in &ws.bound_to_board {
        if let Some(k) = kind_of(d, n) {
            bound |= 1 << k.0;
        }
    }
    let mut start = Vec::new();
    for (name, at) in ws.players.start.iter() {
        let Some(k) = kind_index(name) else {
            d.at(at.span(), format!("unknown piece kind `{name}` in players.start; known: {}", known()));
            continue;
        };
        let [x, y] = *at.get_ref();
        if x < 0 || y < 0 || x >= tile.0 || y >= tile.1 {
            d.at(at.span(), format!("[{x}, {y}] is off the {}×{} board", tile.0, tile.1));
            continue;
        }
        if start.iter().any(|&(_, p)| p == (x, y)) {
            d.at(at.span(), format!("two starting pieces on [{x}, {y}]"));
        }
        start.push((k, (x, y)));
    }
    let r = &ws.resolution;
    let mut phases = Vec::new();
    for p in &r.phases {
        let phase = match p.get_ref().as_str() {
            "place_kings" => Phase::PlaceKings,
            "drops" => Phase::Drops,
            "leaps" => Phase::Leaps,
            "slides" => Phase::Slides,
            other => {
                d.at(p.span(), format!("unknown phase `{other}`; the phases are place_kings, drops, leaps, slides"));
                continue;
            }
        };
        if phases.contains(&phase) {
            d.at(p.span(), format!("phase `{}` is listed twice", phase.name()));
        }
        phases.push(phase);
    }
    let all = [Phase::PlaceKings, Phase::Drops, Phase::Leaps, Phase::Slides];
    let missing: Vec<&str> = all.iter().filter(|p| !phases.contains(p)).map(|p| p.name()).collect();
    if !missing.is_empty() {
        d.at(w.span(), format!("`resolution.phases` must list every phase once; missing: {}", missing.join(", ")));
    }
    let kings_slide = match r.king_phase.get_ref().as_str() {
        "leaps" => false,
        "slides" => true,
        other => {
            d.at(r.king_phase.span(), format!("unknown king_phase `{other}`; expected \"leaps\" or \"slides\""));
            false
        }
    };
    let slides_with_leaps = match r.slides_start.get_ref().as_str() {
        "after_leaps" => false,
        "with_leaps" => true,
        other => {
            d.at(
                r.slides_start.span(),
                format!("unknown slides_start `{other}`; expected \"after_leaps\" or \"with_leaps\""),
            );
            false
        }
    };
    if slides_with_leaps {
        let l = phases.iter().position(|&p| p == Phase::Leaps);
        let s = phases.iter().position(|&p| p == Phase::Slides);
        if let (Some(l), Some(s)) = (l, s)
            && s != l + 1
        {
            d.at(r.slides_start.span(), "slides_start = \"with_leaps\" needs \"slides\" right after \"leaps\"");
        }
    }
    let mut strength = vec![None; kinds.len()];
    for (name, s) in r.strength.iter() {
        match kind_index(name) {
            Some(k) => strength[k.index()] = Some(*s.get_ref()),
            None => d.at(s.span(), format!("unknown piece kind `{name}` in resolution.strength; known: {}", known())),
        }
    }
    for (k, s) in kinds.iter().zip(&strength) {
        if s.is_none() {
            d.at(w.span(), format!("resolution.strength has no strength for `{}` (every kind needs one)", k.name));
        }
    }
    let choice = |d: &mut Diagnostics, s: &Spanned<String>, key: &str| match s.get_ref().as_str() {
        "lowest_yx" => true,
        "none" => false,
        other => {
            d.at(s.span(), format!("unknown {key} `{other}`; expected \"lowest_yx\" or \"none\""));
            false
        }
    };
    let forced_flee = choice(d, &ws.rescue.flee_choice, "flee_choice");
    let auto_place = choice(d, &ws.rescue.placement, "placement");
    let positive = |d: &mut Diagnostics, v: &Spanned<u32>, key: &str| {
        if *v.get_ref() == 0 {
            d.at(v.span(), format!("`{key}` must be at least 1"));
        }
        *v.get_ref()
    };
    let start_boards = positive(d, &ws.players.start_boards, "start_boards");
    let actions_per_board = positive(d, &ws.players.actions_per_board, "actions_per_board");
    let Some(reserve) = reserve else {
        d.at(w.span(), "a world needs a `[reserve]` (the players' vaults; `holds = []` for none)");
        return (None, None);
    };
    let world = WorldRules {
        tile,
        max_other_boards: *ws.max_other_boards.get_ref(),
        bound,
        start_boards,
        start,
        actions_per_board,
        rescue_required: ws.rescue.required,
        forced_flee,
        auto_place,
        phases,
        kings_slide,
        slides_with_leaps,
        swap_collision: r.swap_collision,
        strength: strength.into_iter().map(|s| s.unwrap_or(0)).collect(),
        bot_after: *ws.inactivity.bot_after.get_ref(),
        claimable_after: *ws.inactivity.claimable_after.get_ref(),
        lockout_hours: *ws.inactivity.lockout_hours.get_ref(),
        reserve: reserve.clone(),
    };
    (Some(reserve), Some(Arc::new(world)))
}

fn reserve(
    r: &Spanned<ReserveSpec>,
    kind_of: &mut dyn FnMut(&mut Diagnostics, &Spanned<String>) -> Option<KindId>,
    regions: &[Region],
    d: &mut Diagnostics,
) -> ReserveRule {
    let s = r.get_ref();
    let mut holds = 0u32;
    for n in &s.holds {
        if let Some(k) = kind_of(d, n) {
            holds |= 1 << k.0;
        }
    }
    let drop = match s.drop.get_ref().as_str() {
        "presence" => DropZone::Presence,
        "anywhere" => DropZone::Anywhere,
        "none" => DropZone::Never,
        name => match regions.iter().position(|g| g.name == name) {
            Some(i) => DropZone::Region(i),
            None => {
                d.at(
                    s.drop.span(),
                    format!(
                        "unknown drop zone `{name}`; expected \"presence\", \"anywhere\", \"none\" or a region's name"
                    ),
                );
                DropZone::Anywhere
            }
        },
    };
    let captured_to_taker = match s.captured.get_ref().as_str() {
        "taker" => true,
        "none" => false,
        other => {
            d.at(s.captured.span(), format!("unknown `captured` `{other}`; expected \"taker\" or \"none\""));
            true
        }
    };
    let mut rule = ReserveRule {
        cap: *s.cap.get_ref(),
        holds,
        drop,
        captured_to_taker,
        drop_zones: Vec::new(),
        one_per_file: Vec::new(),
        no_drop_mate: Vec::new(),
        drop_mate_loses: false,
        gating: None,
    };
    super::hand::compile(s, kind_of, regions, d, &mut rule);
    rule
}
