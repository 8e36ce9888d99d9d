//! Who may read or write what, one test per rule (issue 13 point 7), and the CA-19…CA-26
//! scenarios the earlier tests left out, on SQLite and (with `VARIA_PG_URL`) PostgreSQL.
//! Every expected value is worked out by hand from RULES.md and realm/README.md.
//!
//! Positions: a board [bx, by] has its corner at (5bx, 5by) and holds K +(2,2), Q +(2,3),
//! R +(1,2), B +(3,2), N +(2,1) (CA-03, scripts/caissan/variant.toml). Where a test needs
//! exact boards in a realm with cities it lays the map out itself ([`layout`]), so it does
//! not depend on where joins put empires; where it relies on joins it says which facts
//! it uses (in a realm without cities: ring by ring from [0, 0], each ring in (y, x)
//! order; in Caissa, [-1,-1]..[1,1]: three players fill its nine boards, three each).

mod common;

use std::sync::Arc;

use common::*;
use serde_json::json;
use varia::world::json::{BoardJson, PieceJson, StateJson};
use varia_realm::chat::{Geometry, Scope, Standing, standings};
use varia_realm::service::{Service, round_seed};
use varia_realm::transfer::{Outcome, facing_side};
use varia_realm::worker::Step;
use varia_realm::{Error, ManualClock};

const CAISSA: &str = "name = \"perm\"\nround_hours = 6\nseed = 1\n\
    [[cities]]\nname = \"Caissa\"\nboards = [[-1, -1], [1, 1]]\n\
    [[cities]]\nname = \"Philidor\"\nboards = [[3, -1], [4, 1]]\n\
    [[roads]]\nbetween = [\"Caissa\", \"Philidor\"]\n";

const WORLD_WRITERS: &str = "only the top 20 players of the realm (by boards, then pieces) write here";
const CAISSA_WRITERS: &str =
    "only the top 20 players of Caissa (by boards there, then pieces on those boards) write here";
const SECTOR_RULE: &str = "a sector's log is read and written only while you have a piece standing in the sector";
/// T0 + 24 h (CA-18: the lockout after abandoning, `lockout_hours = 24`).
const LOCKED_UNTIL: i64 = T0 + 86_400;

const START: [(&str, i32, i32); 5] = [("K", 2, 2), ("Q", 2, 3), ("R", 1, 2), ("B", 3, 2), ("N", 2, 1)];

/// Rebuilds the map: each player holds the boards given, each with the starting pieces;
/// nothing else stands anywhere.
fn layout(st: &mut StateJson, empires: &[(&str, &[[i32; 2]])]) {
    st.boards.clear();
    st.pieces.clear();
    for (p, boards) in empires {
        for &[bx, by] in *boards {
            st.boards.push(BoardJson { board: [bx, by], owner: Some(p.to_string()) });
            for (k, dx, dy) in START {
                st.pieces.push(PieceJson { x: 5 * bx + dx, y: 5 * by + dy, owner: p.to_string(), kind: k.into() });
            }
        }
    }
    st.boards.sort_by_key(|b| b.board);
    st.pieces.sort_by_key(|p| (p.y, p.x));
}

fn forbidden<T: std::fmt::Debug>(r: Result<T, Error>) -> String {
    match r {
        Err(e @ Error::Forbidden { .. }) => {
            assert_eq!(e.status(), 403);
            e.to_string()
        }
        other => panic!("expected 403, got {other:?}"),
    }
}

fn refused<T: std::fmt::Debug>(r: Result<T, Error>) -> String {
    match r {
        Err(e @ Error::Refused { .. }) => {
            assert_eq!(e.status(), 422);
            e.to_string()
        }
        other => panic!("expected 422, got {other:?}"),
    }
}

/// A card as (player, boards, pieces, bot).
fn card(top: &[Standing]) -> Vec<(String, u64, u64, bool)> {
    top.iter().map(|s| (s.player.clone(), s.boards, s.pieces, s.bot)).collect()
}

fn row(p: &str, boards: u64, pieces: u64, bot: bool) -> (String, u64, u64, bool) {
    (p.to_string(), boards, pieces, bot)
}

fn mayor_of(s: &mut Service, token: &str, city: &str) -> Option<String> {
    s.cities(token).unwrap().into_iter().find(|c| c.name == city).expect("the city").mayor
}

/// The sector log of the board a square lies on (tile 5, sectors of 10 boards a side).
fn sector_of(x: i32, y: i32) -> String {
    format!("sector:{},{}", x.div_euclid(5).div_euclid(10), y.div_euclid(5).div_euclid(10))
}

/// Marks a player bot-run exactly as the resolver's output would (CA-18: idle for
/// `bot_after = 10` rounds; the `bots` list is derived from the idle counts).
fn make_bot(st: &mut StateJson, p: &str) {
    st.idle.insert(p.to_string(), 10);
    st.bots.push(p.to_string());
}

/// Caissa with alice and bob (3 boards and 15 pieces each there). For ten rounds alice
/// passes and bob gives no order, so bob is idle 10 rounds and bot-run (CA-18). Before
/// the tenth, alice loses a knight standing on her own board: bob has 15 pieces on his
/// boards there, alice 14.
fn bot_realm(open: &mut Opener) -> (Service, String, String) {
    let (mut s, _) = realm_from(open(true).unwrap(), CAISSA);
    let a = s.join("alice").unwrap().token;
    let b = s.join("bob").unwrap().token;
    for r in 0..10 {
        if r == 9 {
            poke_world(open(false).unwrap().as_mut(), |st| {
                let i = st.pieces.iter().position(|p| p.owner == "alice" && p.kind == "N").unwrap();
                st.pieces.remove(i);
            });
        }
        let board = s.state().unwrap().boards.iter().find(|b| b.owner.as_deref() == Some("alice")).unwrap().board;
        s.submit(&a, &[json!({ "type": "pass", "board": board })], None).unwrap();
        s.advance(true).unwrap();
    }
    (s, a, b)
}

/// Caissa with alice, bob and carol (3 boards, 15 pieces each there; alice is mayor:
/// a full tie goes to the earliest joiner). Player `who` gives the order to abandon and
/// round 0 is resolved at T0: they are eliminated and locked out until T0 + 24 h.
fn abandoned(open: &mut Opener, who: usize) -> (Service, ManualClock, Vec<String>, Vec<[i32; 2]>) {
    let (mut s, clock) = realm_from(open(true).unwrap(), CAISSA);
    let joined: Vec<_> = ["alice", "bob", "carol"].iter().map(|p| s.join(p).unwrap()).collect();
    let tokens: Vec<String> = joined.iter().map(|j| j.token.clone()).collect();
    s.submit(&tokens[who], &[json!({ "type": "abandon" })], None).unwrap();
    s.advance(true).unwrap();
    (s, clock, tokens, joined[who].boards.clone())
}

// ---- Chat: bots, eliminated players, cards (CA-24…CA-26, A-CA14, A-CA15) ----

#[test]
fn a_bot_is_on_the_world_card_but_only_the_top_20_real_players_write() {
    // CA-26: the card lists the top 20 holders, bots included; the writers are the top 20
    // real players. 22 players join a realm without cities, 3 boards and 15 pieces each,
    // so join order ranks them; p01 is bot-run. The card is p01 (bot) and p02…p20; the
    // writers are p02…p21: p21 writes though the card does not show it, p22 does not.
    // p01 joined first: [0,0] [-1,-1] [0,-1], sectors (0,0), (-1,-1), (0,-1).
    for (name, mut open) in stores("perm-world-bot") {
        let (mut s, _) = realm(open(true).unwrap(), 6, 1);
        let t: Vec<String> = (1..=22).map(|i| s.join(&format!("p{i:02}")).unwrap().token).collect();
        poke_world(open(false).unwrap().as_mut(), |st| make_bot(st, "p01"));
        let log = s.chat_read(&t[0], "world").unwrap();
        assert_eq!(
            log.top[0],
            Standing { player: "p01".into(), boards: 3, pieces: 15, sectors: 3, cities: 0, bot: true },
            "{name}"
        );
        let want: Vec<_> = (1..=20).map(|i| row(&format!("p{i:02}"), 3, 15, i == 1)).collect();
        assert_eq!(card(&log.top), want, "{name}");
        assert!(!log.may_write, "{name}: p01 is bot-run");
        assert_eq!(forbidden(s.chat_post(&t[0], "world", "beep")), WORLD_WRITERS, "{name}");
        let log = s.chat_read(&t[20], "world").unwrap();
        assert!(log.may_write, "{name}: p21 is the 20th real player");
        assert!(!log.top.iter().any(|r| r.player == "p21"), "{name}: 21st on the card, so not shown");
        assert_eq!(s.chat_post(&t[20], "world", "20th real player").unwrap(), 1, "{name}");
        assert!(!s.chat_read(&t[21], "world").unwrap().may_write, "{name}: p22 is the 21st real player");
        assert_eq!(forbidden(s.chat_post(&t[21], "world", "let me in")), WORLD_WRITERS, "{name}");
        let lines = s.chat_read(&t[21], "world").unwrap().lines;
        assert_eq!(
            lines.iter().map(|l| (l.author.as_str(), l.text.as_str())).collect::<Vec<_>>(),
            vec![("p21", "20th real player")],
            "{name}: everyone reads; the refused posts left nothing"
        );
    }
}

#[test]
fn the_city_card_shows_its_top_20_holders_bots_included_and_cuts_the_21st() {
    // CA-25: Big is boards [-4,-4]..[4,4]; 21 players join, 3 boards and 15 pieces each in
    // it (81 boards: room for all), ranked by join order. The card is p01…p20; p21 is cut
    // and may not write. Once p01 is bot-run, the card is unchanged (p01 marked a bot) and
    // p21, now the 20th real player, writes without being shown.
    let text = "name = \"big\"\nround_hours = 6\n[[cities]]\nname = \"Big\"\nboards = [[-4, -4], [4, 4]]\n";
    let big = "only the top 20 players of Big (by boards there, then pieces on those boards) write here";
    for (name, mut open) in stores("perm-city-cut") {
        let (mut s, clock) = realm_from(open(true).unwrap(), text);
        let t: Vec<String> = (1..=21).map(|i| s.join(&format!("p{i:02}")).unwrap().token).collect();
        let log = s.chat_read(&t[20], "city:Big").unwrap();
        let want: Vec<_> = (1..=20).map(|i| row(&format!("p{i:02}"), 3, 15, false)).collect();
        assert_eq!(card(&log.top), want, "{name}: p21 is not shown");
        assert!(log.top.iter().all(|r| (r.cities, r.sectors > 0) == (1, true)), "{name}");
        assert!(!log.may_write, "{name}");
        assert_eq!(forbidden(s.chat_post(&t[20], "city:Big", "let me in")), big, "{name}");
        assert_eq!(s.chat_post(&t[19], "city:Big", "p20 here").unwrap(), 1, "{name}");
        poke_world(open(false).unwrap().as_mut(), |st| make_bot(st, "p01"));
        let log = s.chat_read(&t[20], "city:Big").unwrap();
        let want: Vec<_> = (1..=20).map(|i| row(&format!("p{i:02}"), 3, 15, i == 1)).collect();
        assert_eq!(card(&log.top), want, "{name}");
        assert!(log.may_write, "{name}: p21 is the 20th real player of Big");
        clock.advance(5);
        assert_eq!(s.chat_post(&t[20], "city:Big", "p21 here").unwrap(), 2, "{name}");
        assert_eq!(forbidden(s.chat_post(&t[0], "city:Big", "beep")), big, "{name}: a bot-run player");
    }
}

#[test]
fn a_bot_run_player_writes_no_log_until_a_round_is_resolved_with_their_orders() {
    // CA-25, CA-26: only real players write the world and city logs; bob is bot-run (and
    // first on both cards). CA-24 asks a piece standing in the sector: bob reads the
    // sectors where his pieces stand, and is on their cards, but only a real player writes
    // (decision, realm/README.md). Once a round is resolved with orders of his, bob is
    // real again and writes.
    let bot_sector = "the bot plays for you (CA-18: rounds without your orders): you read this sector's log and write in it again once a round is resolved with your orders";
    for (name, mut open) in stores("perm-bot-chat") {
        let (mut s, a, b) = bot_realm(&mut open);
        let st = s.state().unwrap();
        assert_eq!(st.bots, vec!["bob"], "{name}");
        for (log, refusal) in [("world", WORLD_WRITERS), ("city:Caissa", CAISSA_WRITERS)] {
            let read = s.chat_read(&b, log).unwrap();
            assert_eq!(card(&read.top), vec![row("bob", 3, 15, true), row("alice", 3, 14, false)], "{name} {log}");
            assert!(!read.may_write, "{name} {log}");
            assert_eq!(forbidden(s.chat_post(&b, log, "beep")), refusal, "{name} {log}");
        }
        assert_eq!(s.chat_post(&a, "world", "alice is real").unwrap(), 1, "{name}");
        let bobs = st.pieces.iter().find(|p| p.owner == "bob").unwrap();
        let sector = sector_of(bobs.x, bobs.y);
        let read = s.chat_read(&b, &sector).unwrap();
        assert!(!read.may_write, "{name}: {sector}");
        assert!(read.top.iter().any(|r| r.player == "bob" && r.bot), "{name}: {:?}", read.top);
        assert_eq!(forbidden(s.chat_post(&b, &sector, "my bot plays, I talk")), bot_sector, "{name}");
        let board = st.boards.iter().find(|x| x.owner.as_deref() == Some("bob")).unwrap().board;
        s.submit(&b, &[json!({ "type": "pass", "board": board })], None).unwrap();
        s.advance(true).unwrap();
        assert!(s.state().unwrap().bots.is_empty(), "{name}");
        assert_eq!(s.chat_post(&b, &sector, "back at the board").unwrap(), 1, "{name}");
    }
}

#[test]
fn an_eliminated_player_reads_the_world_and_city_logs_writes_none_and_leaves_the_cards() {
    // CA-17, CA-24…CA-26: carol abandoned; with no board and no piece she is on no card,
    // writes no log, and reads no sector; she still reads the world's and the cities'.
    for (name, mut open) in stores("perm-eliminated-chat") {
        let (mut s, _, t, boards) = abandoned(&mut open, 2);
        let c = &t[2];
        assert_eq!(s.state().unwrap().eliminated, vec!["carol"], "{name}");
        for (log, refusal) in [("world", WORLD_WRITERS), ("city:Caissa", CAISSA_WRITERS)] {
            let read = s.chat_read(c, log).unwrap();
            assert_eq!(card(&read.top), vec![row("alice", 3, 15, false), row("bob", 3, 15, false)], "{name} {log}");
            assert!(!read.may_write, "{name} {log}");
            assert_eq!(forbidden(s.chat_post(c, log, "I am back")), refusal, "{name} {log}");
        }
        // The sector of one of her former boards: her pieces are gone, so is the log.
        let [bx, by] = boards[0];
        let sector = sector_of(5 * bx, 5 * by);
        assert_eq!(forbidden(s.chat_read(c, &sector)), SECTOR_RULE, "{name}");
        assert_eq!(forbidden(s.chat_post(c, &sector, "hello?")), SECTOR_RULE, "{name}");
        assert_eq!(s.chat_post(&t[0], "world", "alice writes").unwrap(), 1, "{name}");
    }
}

#[test]
fn a_city_log_and_a_sector_log_keep_the_newest_100_lines() {
    // CA-24: line 101 pushes line 1 out, in each log on its own; the world log is untouched.
    for (name, mut open) in stores("perm-cap") {
        let (mut s, clock) = realm_from(open(true).unwrap(), CAISSA);
        let j = s.join("alice").unwrap();
        let [bx, by] = j.boards[0];
        let sector = sector_of(5 * bx, 5 * by);
        for log in ["city:Caissa", sector.as_str()] {
            for i in 1..=101 {
                assert_eq!(s.chat_post(&j.token, log, &format!("line {i}")).unwrap(), i, "{name} {log}");
                clock.advance(5);
            }
            let lines = s.chat_read(&j.token, log).unwrap().lines;
            assert_eq!(lines.len(), 100, "{name} {log}");
            assert_eq!((lines[0].seq, lines[0].text.as_str()), (2, "line 2"), "{name} {log}: line 1 is gone");
            assert_eq!((lines[99].seq, lines[99].text.as_str()), (101, "line 101"), "{name} {log}");
        }
        assert!(s.chat_read(&j.token, "world").unwrap().lines.is_empty(), "{name}");
    }
}

#[test]
fn two_realms_in_one_database_keep_their_own_logs_and_tokens() {
    // CA-24: each realm has its own logs. PostgreSQL: two schemas of one database;
    // SQLite: two files (one realm per file). Both realms have an alice.
    let pairs = stores("perm-realm-a").into_iter().zip(stores("perm-realm-b"));
    for ((name, mut open_a), (_, mut open_b)) in pairs {
        let (mut a, _) = realm(open_a(true).unwrap(), 6, 1);
        let (mut b, _) = realm(open_b(true).unwrap(), 6, 2);
        let ta = a.join("alice").unwrap().token;
        let tb = b.join("alice").unwrap().token;
        assert_eq!(a.chat_post(&ta, "world", "hello from A").unwrap(), 1, "{name}");
        assert_eq!(a.chat_post(&ta, "sector:0,0", "sector of A").unwrap_err().status(), 429, "{name}: A's pause");
        assert!(b.chat_read(&tb, "world").unwrap().lines.is_empty(), "{name}: B sees nothing of A");
        assert!(b.chat_read(&tb, "sector:0,0").unwrap().lines.is_empty(), "{name}");
        assert_eq!(b.chat_post(&tb, "world", "hello from B").unwrap(), 1, "{name}: B numbers its own, no pause");
        let texts = |s: &mut Service, t: &str| -> Vec<String> {
            s.chat_read(t, "world").unwrap().lines.into_iter().map(|l| l.text).collect()
        };
        assert_eq!(texts(&mut a, &ta), vec!["hello from A"], "{name}");
        assert_eq!(texts(&mut b, &tb), vec!["hello from B"], "{name}");
        assert!(matches!(b.chat_read(&ta, "world"), Err(Error::Unauthorized)), "{name}: A's token in B");
        assert!(matches!(a.view(&tb), Err(Error::Unauthorized)), "{name}: B's token in A");
    }
}

// ---- Visibility and joining: idle counts, lockouts (CA-18) ----

#[test]
fn a_lockout_and_an_idle_count_are_seen_only_by_their_player() {
    // README "Visibility": a player's idle count and lockout are theirs alone. After
    // round 0 alice and bob gave no order (idle 1); carol abandoned (idle 0, locked out
    // until T0 + 24 h). Eliminations are public.
    for (name, mut open) in stores("perm-hidden") {
        let (mut s, _, t, _) = abandoned(&mut open, 2);
        let st = s.state().unwrap();
        assert_eq!(st.idle, [("alice".to_string(), 1), ("bob".to_string(), 1)].into(), "{name}: the whole state");
        assert_eq!(st.lockouts, [("carol".to_string(), LOCKED_UNTIL)].into(), "{name}");
        let views: Vec<_> = t.iter().map(|t| s.view(t).unwrap().world).collect();
        assert_eq!((views[0].idle.clone(), views[0].lockouts.clone()), ([("alice".into(), 1)].into(), [].into()));
        assert_eq!((views[1].idle.clone(), views[1].lockouts.clone()), ([("bob".into(), 1)].into(), [].into()));
        assert_eq!(
            (views[2].idle.clone(), views[2].lockouts.clone()),
            ([].into(), [("carol".into(), LOCKED_UNTIL)].into())
        );
        for v in &views {
            assert_eq!(v.eliminated, vec!["carol"], "{name}");
        }
        // Nor does the round's public record carry them.
        let round = serde_json::to_string(&s.round(&t[0], 0).unwrap()).unwrap();
        assert!(!round.contains("lockouts") && !round.contains(&LOCKED_UNTIL.to_string()), "{name}: {round}");
        assert!(!round.contains("\"idle\""), "{name}");
    }
}

#[test]
fn boards_taken_over_are_seen_only_by_their_old_owner() {
    // README "Takeovers": the list of one's boards taken over is one's own, like the
    // vault. In a realm without cities alice gets [0,0] [-1,-1] [0,-1] and bob [1,-1]
    // [-1,0] [1,0]; alice idle 45 rounds (CA-18), carol's join at T0 takes her three
    // boards (ring 0, then ring 1 in (y, x) order). Round 0 is then resolved at T0.
    for (name, mut open) in stores("perm-takeover") {
        let (mut s, _) = realm(open(true).unwrap(), 6, 1);
        let t: Vec<String> = ["alice", "bob"].iter().map(|p| s.join(p).unwrap().token).collect();
        poke_world(open(false).unwrap().as_mut(), |st| {
            st.idle.insert("alice".into(), 45);
        });
        let c = s.join("carol").unwrap();
        assert_eq!(c.boards, [[0, 0], [-1, -1], [0, -1]], "{name}");
        s.advance(true).unwrap();
        let http = serve(s);
        let entry = |b: [i32; 2]| json!({ "board": b, "by": "carol", "round": 0, "at": T0, "pieces": 5 });
        let (st, v) = http.call("GET", "/world", Some(&t[0]), None);
        assert_eq!((st, &v["taken_over"]), (200, &json!([entry([-1, -1]), entry([0, -1]), entry([0, 0])])), "{name}");
        // Neither a bystander nor the new owner reads it, in their view or in the
        // round's public record.
        for token in [&t[1], &c.token] {
            let (st, v) = http.call("GET", "/world", Some(token), None);
            assert_eq!((st, &v["taken_over"]), (200, &json!([])), "{name}");
            let (st, v) = http.call("GET", "/rounds/0", Some(token), None);
            let text = v.to_string();
            assert!(st == 200 && !text.contains("taken_over") && !text.contains("takeover"), "{name}: {text}");
        }
    }
}

#[test]
fn a_join_during_the_lockout_is_refused_with_the_lockout() {
    // CA-18: carol abandoned at T0 and may not start again until T0 + 24 h; her join is
    // refused with that reason (422), not with "name taken", and changes nothing. At the
    // end of the lockout the name is still hers (409): she comes back under it with her
    // token (`rejoin`, tests/rejoin.rs), nobody else takes it.
    for (name, mut open) in stores("perm-lockout-join") {
        let (mut s, clock, _, _) = abandoned(&mut open, 2);
        let before = serde_json::to_string(&s.state().unwrap()).unwrap();
        for at in [T0 + 1, LOCKED_UNTIL - 1] {
            clock.set(at);
            let e = s.join("carol").unwrap_err();
            assert_eq!(e.status(), 422, "{name}");
            assert_eq!(
                e.to_string(),
                format!("`carol` abandoned an empire and is locked out until {LOCKED_UNTIL} (CA-18)"),
                "{name}"
            );
        }
        clock.set(LOCKED_UNTIL);
        let e = s.join("carol").unwrap_err();
        assert_eq!((e.status(), e.to_string()), (409, "`carol` is already a player of this realm".into()), "{name}");
        assert_eq!(serde_json::to_string(&s.state().unwrap()).unwrap(), before, "{name}: nothing changed");
        // Over HTTP: 422 with the reason.
        clock.set(T0 + 1);
        let http = serve(s);
        let (st, v) = http.call("POST", "/join", None, Some(json!({ "player": "carol" })));
        let want = format!("`carol` abandoned an empire and is locked out until {LOCKED_UNTIL} (CA-18)");
        assert_eq!((st, v["error"].as_str()), (422, Some(want.as_str())), "{name}");
    }
}

// ---- Mayors (CA-21…CA-23) ----

#[test]
fn a_bot_run_player_may_be_mayor() {
    // CA-21 excludes nobody: bob, bot-run, holds 3 boards and 15 pieces in Caissa against
    // alice's 3 and 14, and is elected at the tenth resolution (at T0). His human uses
    // the crown.
    for (name, mut open) in stores("perm-bot-mayor") {
        let (mut s, a, b) = bot_realm(&mut open);
        assert_eq!(s.state().unwrap().idle.get("bob"), Some(&10), "{name}");
        assert_eq!(mayor_of(&mut s, &a, "Caissa").as_deref(), Some("bob"), "{name}");
        let crown = s.crown(&b, "Caissa").unwrap();
        assert_eq!((crown.mayor.as_str(), crown.since, crown.round), ("bob", T0, 10), "{name}");
        assert!(forbidden(s.crown(&a, "Caissa")).contains("(the mayor is bob:"), "{name}");
    }
}

#[test]
fn an_eliminated_player_is_never_mayor() {
    // alice, the mayor of Caissa, abandons: eliminated, she holds nothing, and the
    // election at the resolution gives the office to bob (bob and carol tie on 3 boards
    // and 15 pieces; the incumbent is out, so the earlier joiner). The election itself
    // leaves out a player marked eliminated even where the state still gives them boards.
    for (name, mut open) in stores("perm-eliminated-mayor") {
        let (mut s, _) = realm_from(open(true).unwrap(), CAISSA);
        let t: Vec<String> = ["alice", "bob", "carol"].iter().map(|p| s.join(p).unwrap().token).collect();
        assert_eq!(mayor_of(&mut s, &t[1], "Caissa").as_deref(), Some("alice"), "{name}");
        let mut st = s.state().unwrap();
        st.eliminated.push("alice".into());
        let cities = s.cities(&t[1]).unwrap();
        let geo = Geometry { tile: (5, 5), sector_boards: 10 };
        let ranked = standings(&st, geo, &cities, Scope::City(&cities[0]));
        assert_eq!(card(&ranked), vec![row("bob", 3, 15, false), row("carol", 3, 15, false)], "{name}");
        assert_eq!(varia_realm::mayor::elect(&ranked, Some("alice")).as_deref(), Some("bob"), "{name}");

        s.submit(&t[0], &[json!({ "type": "abandon" })], None).unwrap();
        s.advance(true).unwrap();
        assert_eq!(mayor_of(&mut s, &t[1], "Caissa").as_deref(), Some("bob"), "{name}");
        assert_eq!(s.crown(&t[1], "Caissa").unwrap().since, T0, "{name}");
        let why = forbidden(s.crown(&t[0], "Caissa"));
        assert!(why.ends_with("(the mayor is bob: most boards there, then pieces on them)"), "{name}: {why}");
    }
}

#[test]
fn the_mayor_vault_passes_to_the_next_mayor_when_the_crown_is_lost() {
    // CA-23: the vault is the city's. alice (mayor) has 3 queens in it and gives bob 1 in
    // round 0; alice then loses a knight, and at the resolution bob (15 pieces to 14)
    // takes the office with the 2 queens left. Round 1 is new: bob may give 2 to alice.
    for (name, mut open) in stores("perm-vault-passes") {
        let (mut s, _) = realm_from(open(true).unwrap(), CAISSA);
        let a = s.join("alice").unwrap().token;
        let b = s.join("bob").unwrap().token;
        poke_sql(open(false).unwrap().as_mut(), "INSERT INTO mayor_vault (city, kind, count) VALUES (1, 'Q', 3)");
        assert_eq!(s.donate(&a, "Caissa", "bob", "Q", 1).unwrap().given_this_round, 1, "{name}");
        assert_eq!(s.crown(&a, "Caissa").unwrap().vault, [("Q".to_string(), 2)].into(), "{name}");
        poke_world(open(false).unwrap().as_mut(), |st| {
            let i = st.pieces.iter().position(|p| p.owner == "alice" && p.kind == "N").unwrap();
            st.pieces.remove(i);
        });
        s.advance(true).unwrap();
        assert!(forbidden(s.crown(&a, "Caissa")).contains("(the mayor is bob:"), "{name}");
        let crown = s.crown(&b, "Caissa").unwrap();
        assert_eq!(crown.vault, [("Q".to_string(), 2)].into(), "{name}: the vault passed");
        assert_eq!((crown.round, crown.donated.len()), (1, 0), "{name}");
        assert!(forbidden(s.donate(&a, "Caissa", "alice", "Q", 1)).contains("(the mayor is bob:"), "{name}");
        assert_eq!(s.donate(&b, "Caissa", "alice", "Q", 2).unwrap().given_this_round, 2, "{name}");
        assert_eq!(s.crown(&b, "Caissa").unwrap().vault, [("Q".to_string(), 0)].into(), "{name}");
        assert_eq!(s.state().unwrap().vaults["alice"]["Q"], 2, "{name}");
        assert_eq!(s.state().unwrap().vaults["bob"]["Q"], 1, "{name}");
    }
}

#[test]
fn a_donation_to_an_eliminated_player_is_refused_and_changes_nothing() {
    // CA-23 (README: never to an eliminated player): carol abandoned; alice, the mayor,
    // has 3 queens in the vault.
    for (name, mut open) in stores("perm-donate-eliminated") {
        let (mut s, _, t, _) = abandoned(&mut open, 2);
        poke_sql(open(false).unwrap().as_mut(), "INSERT INTO mayor_vault (city, kind, count) VALUES (1, 'Q', 3)");
        let before = serde_json::to_string(&s.state().unwrap()).unwrap();
        assert_eq!(refused(s.donate(&t[0], "Caissa", "carol", "Q", 1)), "carol is eliminated", "{name}");
        let crown = s.crown(&t[0], "Caissa").unwrap();
        assert_eq!((crown.vault, crown.donated), ([("Q".to_string(), 3)].into(), [].into()), "{name}");
        assert_eq!(serde_json::to_string(&s.state().unwrap()).unwrap(), before, "{name}");
    }
}

// ---- The five-queen transfer (CA-19, CA-20, A-CA16) ----

/// Home [-1,-1]..[0,0] and Far [3,-1]..[4,1], linked by a road. The map, laid out by
/// hand: alice holds Home's [-1,-1] [0,-1] [0,0]; bob Far's [3,-1], carol Far's [3,1]
/// ([3,0] between them has no owner, so no king of theirs is in reach of the other).
/// alice's vault holds 5 queens.
const TRANSFER: &str = "name = \"t\"\nround_hours = 6\nseed = 1\n\
    [[cities]]\nname = \"Home\"\nboards = [[-1, -1], [0, 0]]\n\
    [[cities]]\nname = \"Far\"\nboards = [[3, -1], [4, 1]]\n\
    [[roads]]\nbetween = [\"Home\", \"Far\"]\n";

fn transfer_realm(open: &mut Opener) -> (Service, Vec<String>) {
    let (mut s, _) = realm_from(open(true).unwrap(), TRANSFER);
    let t: Vec<String> = ["alice", "bob", "carol"].iter().map(|p| s.join(p).unwrap().token).collect();
    poke_world(open(false).unwrap().as_mut(), |st| {
        layout(st, &[("alice", &[[-1, -1], [0, -1], [0, 0]]), ("bob", &[[3, -1]]), ("carol", &[[3, 1]])]);
        st.vaults.insert("alice".into(), [("Q".to_string(), 5)].into());
    });
    (s, t)
}

#[test]
fn a_transfer_with_two_candidate_boards_lands_on_the_seeded_board_and_square() {
    // A-CA16. Facing Home (centre (-0.5, -0.5)), Far's sides have their midpoints at west
    // (3, 0), south (3.5, -1), north (3.5, 1), east (4, 0): distances² 12.5, 16.25, 18.25,
    // 20.5, so the west side, x = 3: [3,-1] [3,0] [3,1]. [3,0] has no owner, so the
    // candidates are [3,-1] (bob) and [3,1] (carol), in (y, x) order, 20 empty squares
    // each. Transfer 1 of round 0 in a realm of seed 1: s = round_seed(round_seed(1, 0),
    // 1) = 538020821241227815 (SplitMix64, worked out apart from the service), s % 2 = 1:
    // [3,1]; round_seed(s, 1) % 20 = 10: the 11th empty square of [3,1] (corner (15,5);
    // K (17,7), Q (17,8), R (16,7), B (18,7), N (17,6)) in (y, x) order — y = 5: five,
    // y = 6: (15,6) (16,6) (18,6) (19,6), y = 7: (15,7) then (19,7). So (19,7).
    let s1 = round_seed(round_seed(1, 0), 1);
    assert_eq!((s1, s1 % 2, round_seed(s1, 1) % 20), (538_020_821_241_227_815, 1, 10));
    let mut runs = Vec::new();
    for (name, mut open) in stores("perm-transfer-two") {
        let (mut s, t) = transfer_realm(&mut open);
        let cities = s.cities(&t[0]).unwrap();
        assert_eq!(facing_side(&cities[1], &cities[0]), vec![[3, -1], [3, 0], [3, 1]], "{name}");
        assert_eq!(s.transfer(&t[0], "Far").unwrap().id, 1, "{name}");
        s.advance(true).unwrap();
        let rec = s.record(0).unwrap();
        assert_eq!(
            rec.transfers[0].outcome,
            Some(Outcome::Arrived { board: [3, 1], square: [19, 7], to_mayor: 4 }),
            "{name}"
        );
        let st = s.state().unwrap();
        let q: Vec<_> = st.pieces.iter().filter(|p| (p.x, p.y) == (19, 7)).collect();
        assert_eq!((q.len(), q[0].owner.as_str(), q[0].kind.as_str()), (1, "alice", "Q"), "{name}");
        assert_eq!(st.boards.iter().find(|b| b.board == [3, 1]).unwrap().owner.as_deref(), Some("carol"));
        assert_eq!(s.crown(&t[0], "Home").unwrap().vault, [("Q".to_string(), 4)].into(), "{name}");
        runs.push(serde_json::to_string(&rec).unwrap());
    }
    assert!(runs.windows(2).all(|w| w[0] == w[1]), "the stores' records differ");
}

#[test]
fn a_transfer_whose_sender_is_eliminated_by_the_round_is_refunded() {
    // README (transfer): "if the sender was eliminated by the round, all 5 go back to the
    // sender's vault". alice pays 5 queens, then abandons in the same round: her vault is
    // emptied by the abandon and the 5 come back after it (room for all: 0 + 5 ≤ 50);
    // nothing goes to Home's mayor vault, and Home, held by nobody now, has no mayor.
    for (name, mut open) in stores("perm-transfer-gone") {
        let (mut s, t) = transfer_realm(&mut open);
        s.transfer(&t[0], "Far").unwrap();
        assert_eq!(s.state().unwrap().vaults["alice"].get("Q").copied().unwrap_or(0), 0, "{name}: paid");
        s.submit(&t[0], &[json!({ "type": "abandon" })], None).unwrap();
        s.advance(true).unwrap();
        let want = Some(Outcome::Refunded { refunded: 5, destroyed: 0, reason: "alice was eliminated".into() });
        assert_eq!(s.record(0).unwrap().transfers[0].outcome, want, "{name}");
        assert_eq!(s.transfers(&t[0]).unwrap()[0].outcome, want, "{name}: the sender still sees it");
        let st = s.state().unwrap();
        assert_eq!(st.eliminated, vec!["alice"], "{name}");
        assert_eq!(st.vaults["alice"]["Q"], 5, "{name}");
        assert!(!st.pieces.iter().any(|p| p.owner == "alice"), "{name}: no queen arrived");
        assert_eq!(mayor_of(&mut s, &t[1], "Home"), None, "{name}");
        let mut db = open(false).unwrap();
        let mut tx = db.begin(varia_realm::db::Mode::Read).unwrap();
        let rows = tx.query("SELECT COUNT(*) FROM mayor_vault WHERE count > 0", &[]).unwrap();
        assert_eq!(rows[0][0].int().unwrap(), 0, "{name}: nothing in any mayor vault");
    }
}

// ---- The HTTP API: tokens and the workers' closed round ----

#[test]
fn the_crown_and_the_transfers_refuse_a_missing_or_wrong_token_with_401() {
    for (name, mut open) in stores("perm-401") {
        let (mut s, _) = realm_from(open(true).unwrap(), CAISSA);
        let a = s.join("alice").unwrap().token;
        let b = s.join("bob").unwrap().token;
        let http = serve(s);
        let borrowed = format!("alice:{}", b.split(':').nth(1).unwrap());
        let cases = [
            ("GET", "/cities/Caissa/crown", None),
            ("POST", "/transfers", Some(json!({ "to": "Philidor" }))),
            ("GET", "/transfers", None),
            ("POST", "/cities/Caissa/donate", Some(json!({ "to": "bob", "count": 1 }))),
        ];
        for (m, p, body) in &cases {
            let (st, v) = http.call(m, p, None, body.clone());
            assert_eq!((st, v["error"].as_str()), (401, Some("missing `Authorization: Bearer <token>`")), "{name} {p}");
            for wrong in ["alice:0000", borrowed.as_str(), &a[..a.len() - 1], "nobody:00"] {
                let (st, v) = http.call(m, p, Some(wrong), body.clone());
                assert_eq!((st, v["error"].as_str()), (401, Some("unknown player or wrong token")), "{name} {p}");
            }
        }
        // With the right token the same calls get past the door.
        assert_eq!(http.call("GET", "/cities/Caissa/crown", Some(&a), None).0, 200, "{name}");
        let (st, v) = http.call("POST", "/transfers", Some(&a), Some(json!({ "to": "Philidor" })));
        assert_eq!((st, v["error"].as_str()), (422, Some("nobody is present in Philidor: no piece stands there")));
    }
}

#[test]
fn orders_joins_transfers_and_donations_answer_503_while_workers_resolve_a_round() {
    // README: while `realm_meta.resolving` closes the round (a worker planned it), the
    // calls that change the world answer 503 and change nothing; reading goes on, and so
    // do chat posts (they touch no world: decision, realm/README.md). After the merge the
    // next round takes orders.
    let busy = "round 0 is being resolved by the realm's workers; try again when it is done";
    for (name, mut open) in stores("perm-503") {
        let (mut s, clock) = realm_from(open(true).unwrap(), CAISSA);
        let a = s.join("alice").unwrap().token;
        poke_sql(open(false).unwrap().as_mut(), "INSERT INTO mayor_vault (city, kind, count) VALUES (1, 'Q', 3)");
        let http = serve(s);
        let mut worker = Service::open(open(false).unwrap(), Arc::new(clock.clone())).unwrap();
        assert!(matches!(worker.work(true, None).unwrap(), Step::Planned { round: 0, .. }), "{name}");
        for (m, p, token, body) in [
            ("PUT", "/orders", Some(&a), json!({ "orders": [] })),
            ("POST", "/join", None, json!({ "player": "bob" })),
            ("POST", "/transfers", Some(&a), json!({ "to": "Philidor" })),
            ("POST", "/cities/Caissa/donate", Some(&a), json!({ "to": "alice", "count": 1 })),
        ] {
            let (st, v) = http.call(m, p, token.map(String::as_str), Some(body));
            assert_eq!((st, v["error"].as_str()), (503, Some(busy)), "{name} {m} {p}");
        }
        for p in ["/world", "/orders", "/cities", "/chat/world", "/cities/Caissa/crown"] {
            assert_eq!(http.call("GET", p, Some(&a), None).0, 200, "{name} {p}");
        }
        let (st, _) = http.call("POST", "/chat/world", Some(&a), Some(json!({ "text": "waiting" })));
        assert_eq!(st, 201, "{name}");
        let (_, v) = http.call("GET", "/cities/Caissa/crown", Some(&a), None);
        assert_eq!((v["vault"].clone(), v["donated"].clone()), (json!({ "Q": 3 }), json!({})), "{name}");
        let (_, w) = http.call("GET", "/world", Some(&a), None);
        assert_eq!((w["round"].clone(), w["world"]["players"].clone()), (json!(0), json!(["alice"])), "{name}");
        loop {
            match worker.work(true, None).unwrap() {
                Step::Part { .. } => {}
                Step::Merged(done) => {
                    assert_eq!(done.round, 0, "{name}");
                    break;
                }
                other => panic!("{name}: {other:?}"),
            }
        }
        let (st, v) = http.call("PUT", "/orders", Some(&a), Some(json!({ "orders": [] })));
        assert_eq!((st, v["round"].clone()), (200, json!(1)), "{name}");
        assert_eq!(http.call("POST", "/join", None, Some(json!({ "player": "bob" }))).0, 201, "{name}");
    }
}
