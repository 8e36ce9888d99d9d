//! Mayors (CA-21…CA-23, A-CA14), one test per rule, on SQLite and (with `VARIA_PG_URL`)
//! PostgreSQL, with the clock pinned. Positions as in tests/service.rs: a board [bx, by]
//! has its corner at (5bx, 5by) and holds K +(2,2), Q +(2,3), R +(1,2), B +(3,2),
//! N +(2,1); alice joins onto [0,0] [-1,-1] [0,-1], bob onto [1,-1] [-1,0] [1,0].
//! Caissa is boards [-1,-1]..[1,1]: both hold 3 boards there with 15 pieces on them (a
//! join's boards lie in one region, cities first; Caissa's nine boards, taken ring by
//! ring, are the boards a realm without cities would give).

mod common;

use common::*;
use varia_realm::Error;
use varia_realm::mayor::{MOTD_WAIT, RENAME_WAIT};
use varia_realm::service::Service;

const CAISSA: &str = "name = \"m\"\nround_hours = 6\nseed = 1\n\
    [[cities]]\nname = \"Caissa\"\nboards = [[-1, -1], [1, 1]]\n\
    [[cities]]\nname = \"Philidor\"\nboards = [[3, -1], [4, 1]]\n\
    [[roads]]\nbetween = [\"Caissa\", \"Philidor\"]\n";

fn mayor_of(s: &mut Service, token: &str, city: &str) -> Option<String> {
    s.cities(token).unwrap().into_iter().find(|c| c.name == city).expect("the city").mayor
}

fn forbidden(r: Result<impl std::fmt::Debug, Error>) -> String {
    match r {
        Err(Error::Forbidden { message }) => message,
        other => panic!("expected 403, got {other:?}"),
    }
}

fn refused(r: Result<impl std::fmt::Debug, Error>) -> String {
    match r {
        Err(Error::Refused { message }) => message,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

const NOT_MAYOR: &str = "only the mayor of Caissa may use the crown menu and the mayor vault (the mayor is alice: most boards there, then pieces on them)";

#[test]
fn the_mayor_holds_the_most_boards_even_with_fewer_pieces() {
    // CA-21, boards first. Small is [-1,-1]..[1,0]: alice joins onto [0,0] [-1,-1]
    // [0,-1], bob onto [1,-1] [-1,0] [1,0], all in Small (a join's three boards lie in
    // one region, so to have bob hold fewer boards there the operator takes two of his:
    // [1,-1] and [1,0] emptied and left to nobody). Alice keeps her kings and the bishop
    // on (3,2), 4 pieces; bob has 5 on [-1,0]: still alice, after the resolution too.
    let text = "name = \"m\"\nround_hours = 6\n[[cities]]\nname = \"Small\"\nboards = [[-1, -1], [1, 0]]\n";
    for (name, mut open) in stores("mayor-boards") {
        let (mut s, _) = realm_from(open(true).unwrap(), text);
        let a = s.join("alice").unwrap();
        assert_eq!(s.join("bob").unwrap().boards, [[1, -1], [-1, 0], [1, 0]], "{name}");
        assert_eq!(mayor_of(&mut s, &a.token, "Small").as_deref(), Some("alice"), "{name}");
        poke_world(open(false).unwrap().as_mut(), |st| {
            let mut gone = vec![(2, 3), (1, 2), (2, 1)];
            for (cx, cy) in [(-5, -5), (0, -5)] {
                gone.extend([(cx + 2, cy + 3), (cx + 1, cy + 2), (cx + 3, cy + 2), (cx + 2, cy + 1)]);
            }
            for (cx, cy) in [(5, -5), (5, 0)] {
                gone.extend([(cx + 2, cy + 2), (cx + 2, cy + 3), (cx + 1, cy + 2), (cx + 3, cy + 2), (cx + 2, cy + 1)]);
            }
            remove_pieces(st, &gone);
            for b in st.boards.iter_mut().filter(|b| b.board == [1, -1] || b.board == [1, 0]) {
                b.owner = None;
            }
        });
        s.advance(true).unwrap();
        assert_eq!(mayor_of(&mut s, &a.token, "Small").as_deref(), Some("alice"), "{name}");
    }
    // A city where nobody holds a board has no mayor.
    let text = "name = \"m\"\nround_hours = 6\n[[cities]]\nname = \"Far\"\nboards = [[9, 9], [9, 9]]\n";
    let mut open = stores("mayor-none").remove(0).1;
    let (mut s, _) = realm_from(open(true).unwrap(), text);
    let t = s.join("carol").unwrap().token;
    assert_eq!(mayor_of(&mut s, &t, "Far"), None);
}

#[test]
fn a_tie_on_boards_goes_to_the_most_pieces_when_the_round_is_resolved() {
    // CA-21: alice and bob hold 3 boards of Caissa each; alice loses her knight on (2,1).
    // The office is recomputed by the resolution, not before: then bob has 15 to 14.
    for (name, mut open) in stores("mayor-pieces") {
        let (mut s, clock) = realm_from(open(true).unwrap(), CAISSA);
        let a = s.join("alice").unwrap();
        let b = s.join("bob").unwrap();
        assert_eq!(mayor_of(&mut s, &a.token, "Caissa").as_deref(), Some("alice"), "{name}");
        poke_world(open(false).unwrap().as_mut(), |st| remove_pieces(st, &[(2, 1)]));
        assert_eq!(mayor_of(&mut s, &a.token, "Caissa").as_deref(), Some("alice"), "{name}: not yet");
        clock.set(T0 + 100);
        s.advance(true).unwrap();
        assert_eq!(mayor_of(&mut s, &a.token, "Caissa").as_deref(), Some("bob"), "{name}");
        let crown = s.crown(&b.token, "Caissa").unwrap();
        assert_eq!((crown.mayor.as_str(), crown.since, crown.round), ("bob", T0 + 100, 1), "{name}");
        // Philidor has no holder.
        assert_eq!(mayor_of(&mut s, &a.token, "Philidor"), None, "{name}");
    }
}

#[test]
fn a_full_tie_keeps_the_incumbent_even_against_an_earlier_joiner() {
    // A-CA14: bob is mayor (as above); then bob loses his knight on (7,1) too: 3 boards
    // and 14 pieces each. The incumbent bob keeps the office, though alice joined first.
    for (name, mut open) in stores("mayor-incumbent") {
        let (mut s, _) = realm_from(open(true).unwrap(), CAISSA);
        let a = s.join("alice").unwrap();
        s.join("bob").unwrap();
        poke_world(open(false).unwrap().as_mut(), |st| remove_pieces(st, &[(2, 1)]));
        s.advance(true).unwrap();
        assert_eq!(mayor_of(&mut s, &a.token, "Caissa").as_deref(), Some("bob"), "{name}");
        poke_world(open(false).unwrap().as_mut(), |st| remove_pieces(st, &[(7, 1)]));
        s.advance(true).unwrap();
        assert_eq!(mayor_of(&mut s, &a.token, "Caissa").as_deref(), Some("bob"), "{name}: the incumbent stays");
    }
}

#[test]
fn with_no_incumbent_a_full_tie_goes_to_the_earliest_joiner() {
    // A-CA14, on the election itself: alice and bob tie 3 boards and 15 pieces in Caissa.
    use varia_realm::chat::{Geometry, Scope, standings};
    use varia_realm::mayor::elect;
    let mut open = stores("mayor-join-order").remove(0).1;
    let (mut s, _) = realm_from(open(true).unwrap(), CAISSA);
    let a = s.join("alice").unwrap();
    s.join("bob").unwrap();
    let st = s.state().unwrap();
    let cities = s.cities(&a.token).unwrap();
    let geo = Geometry { tile: (5, 5), sector_boards: 10 };
    let ranked = standings(&st, geo, &cities, Scope::City(&cities[0]));
    assert_eq!(
        ranked.iter().map(|r| (r.player.as_str(), r.boards, r.pieces)).collect::<Vec<_>>(),
        vec![("alice", 3, 15), ("bob", 3, 15)]
    );
    assert_eq!(elect(&ranked, None).as_deref(), Some("alice"));
    assert_eq!(elect(&ranked, Some("bob")).as_deref(), Some("bob"));
    // An incumbent who no longer ties loses it; one with no board at all too.
    assert_eq!(elect(&ranked[..1], Some("bob")).as_deref(), Some("alice"));
    assert_eq!(elect(&[], Some("bob")), None);
}

#[test]
fn only_the_mayor_renames_and_the_same_mayor_waits_seven_days() {
    // CA-22. A new mayor may rename at once (the wait is the same mayor's).
    for (name, mut open) in stores("mayor-rename") {
        let (mut s, clock) = realm_from(open(true).unwrap(), CAISSA);
        let a = s.join("alice").unwrap();
        let b = s.join("bob").unwrap();
        assert_eq!(forbidden(s.rename_city(&b.token, "Caissa", "Bobville")), NOT_MAYOR, "{name}");
        s.chat_post(&a.token, "city:Caissa", "before the rename").unwrap();
        let c = s.rename_city(&a.token, "Caissa", "Lasker").unwrap();
        assert_eq!((c.id, c.name.as_str()), (1, "Lasker"), "{name}");
        // The log follows the city.
        assert_eq!(s.chat_read(&b.token, "city:Lasker").unwrap().lines[0].text, "before the rename");
        assert!(matches!(s.chat_read(&b.token, "city:Caissa"), Err(Error::NotFound { .. })));
        assert_eq!(s.crown(&a.token, "Lasker").unwrap().rename_from, T0 + RENAME_WAIT);
        clock.set(T0 + RENAME_WAIT - 1);
        match s.rename_city(&a.token, "Lasker", "Morphy") {
            Err(Error::Cooldown { wait: 1, until, .. }) => assert_eq!(until, T0 + 604_800, "{name}"),
            other => panic!("{name}: {other:?}"),
        }
        assert_eq!(refused(s.rename_city(&a.token, "Lasker", "Philidor")), "another city is called Philidor");
        assert_eq!(refused(s.rename_city(&a.token, "Lasker", "Lasker")), "the city is already called Lasker");
        assert!(matches!(s.rename_city(&a.token, "Lasker", "L@sker"), Err(Error::BadRequest { .. })));
        clock.set(T0 + RENAME_WAIT);
        assert_eq!(s.rename_city(&a.token, "Lasker", "Morphy").unwrap().name, "Morphy", "{name}");
        // Bob becomes mayor (alice loses a knight) and renames at once.
        poke_world(open(false).unwrap().as_mut(), |st| remove_pieces(st, &[(2, 1)]));
        s.advance(true).unwrap();
        assert_eq!(s.rename_city(&b.token, "Morphy", "Bobville").unwrap().name, "Bobville", "{name}");
        let cities = s.cities(&a.token).unwrap();
        assert_eq!(cities[0].name, "Bobville");
        assert_eq!(cities[1].roads, vec!["Bobville"], "{name}: the road follows");
    }
}

#[test]
fn the_message_of_the_day_is_public_and_set_at_most_once_per_24_hours() {
    // CA-22: once per 24 h per city, whoever is mayor.
    for (name, mut open) in stores("mayor-motd") {
        let (mut s, clock) = realm_from(open(true).unwrap(), CAISSA);
        let a = s.join("alice").unwrap();
        let b = s.join("bob").unwrap();
        assert_eq!(forbidden(s.set_motd(&b.token, "Caissa", "hi")), NOT_MAYOR, "{name}");
        s.set_motd(&a.token, "Caissa", "  Welcome to Caissa  ").unwrap();
        let c = &s.cities(&b.token).unwrap()[0];
        assert_eq!((c.motd.as_deref(), c.motd_at), (Some("Welcome to Caissa"), Some(T0)), "{name}");
        clock.set(T0 + MOTD_WAIT - 1);
        assert!(matches!(s.set_motd(&a.token, "Caissa", "again"), Err(Error::Cooldown { wait: 1, .. })), "{name}");
        // A new mayor is bound by the same day.
        poke_world(open(false).unwrap().as_mut(), |st| remove_pieces(st, &[(2, 1)]));
        s.advance(true).unwrap();
        assert!(matches!(s.set_motd(&b.token, "Caissa", "bob here"), Err(Error::Cooldown { wait: 1, .. })));
        clock.set(T0 + MOTD_WAIT);
        assert_eq!(s.set_motd(&b.token, "Caissa", "bob here").unwrap().motd.as_deref(), Some("bob here"));
        assert!(matches!(s.set_motd(&b.token, "Caissa", "two\nlines"), Err(Error::BadRequest { .. })));
        assert_eq!(s.cities(&a.token).unwrap()[0].motd.as_deref(), Some("bob here"), "{name}");
    }
}

#[test]
fn the_mayor_vault_is_shown_only_to_the_mayor() {
    for (name, mut open) in stores("mayor-vault") {
        let (mut s, _) = realm_from(open(true).unwrap(), CAISSA);
        let a = s.join("alice").unwrap();
        let b = s.join("bob").unwrap();
        poke_sql(open(false).unwrap().as_mut(), "INSERT INTO mayor_vault (city, kind, count) VALUES (1, 'Q', 5)");
        assert_eq!(forbidden(s.crown(&b.token, "Caissa")), NOT_MAYOR, "{name}");
        let crown = s.crown(&a.token, "Caissa").unwrap();
        assert_eq!(crown.vault, [("Q".to_string(), 5)].into(), "{name}");
        assert_eq!((crown.since, crown.rename_from, crown.motd_from), (T0, i64::MIN, i64::MIN));
        // Neither the world view nor the city list shows it.
        let view = serde_json::to_string(&s.view(&b.token).unwrap()).unwrap();
        assert!(!view.contains("mayor_vault") && !view.contains("\"vault\":{\"Q\""), "{name}: {view}");
        assert!(matches!(s.crown(&a.token, "Atlantis"), Err(Error::NotFound { .. })));
    }
}

#[test]
fn the_mayor_gives_at_most_two_pieces_to_one_player_per_round_within_their_vault_cap() {
    // CA-23: 2 per player per round, the mayor included; the receiver's vault caps at 50
    // (CA-16). Every refusal changes nothing.
    for (name, mut open) in stores("mayor-donate") {
        let (mut s, _) = realm_from(open(true).unwrap(), CAISSA);
        let a = s.join("alice").unwrap();
        let b = s.join("bob").unwrap();
        poke_sql(open(false).unwrap().as_mut(), "INSERT INTO mayor_vault (city, kind, count) VALUES (1, 'Q', 5)");
        assert_eq!(forbidden(s.donate(&b.token, "Caissa", "bob", "Q", 1)), NOT_MAYOR, "{name}");
        let d = s.donate(&a.token, "Caissa", "bob", "Q", 2).unwrap();
        assert_eq!((d.count, d.round, d.given_this_round), (2, 0, 2), "{name}");
        assert_eq!(
            refused(s.donate(&a.token, "Caissa", "bob", "Q", 1)),
            "bob has had 2 pieces from the mayor vault of Caissa this round; at most 2 per player per round"
        );
        assert_eq!(s.donate(&a.token, "Caissa", "alice", "Q", 2).unwrap().given_this_round, 2, "{name}");
        assert!(s.donate(&a.token, "Caissa", "alice", "Q", 1).is_err());
        // The kinds a player holds (the resolver writes every kind, with zeros).
        let vault_of = |s: &mut Service, p: &str| {
            let mut v = s.state().unwrap().vaults.get(p).cloned().unwrap_or_default();
            v.retain(|_, n| *n > 0);
            v
        };
        assert_eq!(vault_of(&mut s, "bob"), [("Q".to_string(), 2)].into(), "{name}");
        assert_eq!(vault_of(&mut s, "alice"), [("Q".to_string(), 2)].into(), "{name}");
        let crown = s.crown(&a.token, "Caissa").unwrap();
        assert_eq!(crown.vault, [("Q".to_string(), 1)].into(), "{name}");
        assert_eq!(crown.donated, [("alice".to_string(), 2), ("bob".to_string(), 2)].into());
        for (count, kind, to) in [(3, "Q", "bob"), (0, "Q", "bob")] {
            assert!(matches!(s.donate(&a.token, "Caissa", to, kind, count), Err(Error::BadRequest { .. })));
        }
        assert!(matches!(s.donate(&a.token, "Caissa", "nobody", "Q", 1), Err(Error::NotFound { .. })));
        assert_eq!(
            refused(s.donate(&a.token, "Caissa", "alice", "R", 1)),
            "the mayor vault of Caissa holds 0 `R`, not 1"
        );
        // A new round: bob may have 2 more, but with 48 rooks and 1 queen his vault has
        // room for 1.
        s.advance(true).unwrap();
        poke_world(open(false).unwrap().as_mut(), |st| {
            st.vaults.insert("bob".into(), [("R".to_string(), 48), ("Q".to_string(), 1)].into());
        });
        poke_sql(open(false).unwrap().as_mut(), "UPDATE mayor_vault SET count = 3 WHERE city = 1");
        assert_eq!(refused(s.donate(&a.token, "Caissa", "bob", "Q", 2)), "bob's vault has no room for 2 more");
        assert_eq!(s.donate(&a.token, "Caissa", "bob", "Q", 1).unwrap().round, 1, "{name}");
        assert_eq!(vault_of(&mut s, "bob"), [("R".to_string(), 48), ("Q".to_string(), 2)].into(), "{name}");
        assert_eq!(s.crown(&a.token, "Caissa").unwrap().vault, [("Q".to_string(), 2)].into(), "{name}");
    }
}

#[test]
fn a_realm_of_schema_version_3_migrates_and_elects_at_the_next_resolution() {
    let dir = scratch("mayor-migrate");
    let path = dir.join("realm.db");
    let (mut s, _) = realm_from(Box::new(varia_realm::SqliteStore::open(&path, true).unwrap()), CAISSA);
    s.join("alice").unwrap();
    drop(s);
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(
        "DROP TABLE takeovers; \
         ALTER TABLE realm_meta DROP COLUMN rejoin_keeps_vault; ALTER TABLE realm_meta DROP COLUMN join_ground; \
         DROP TABLE round_parts; DROP TABLE round_plans; ALTER TABLE realm_meta DROP COLUMN resolving; \
         DROP TABLE transfers; DROP TABLE donations; DROP TABLE mayor_vault; DROP TABLE mayors; \
         ALTER TABLE cities DROP COLUMN motd; ALTER TABLE cities DROP COLUMN motd_at; \
         ALTER TABLE cities DROP COLUMN renamed_by; ALTER TABLE cities DROP COLUMN renamed_at; \
         UPDATE schema_version SET version = 3",
    )
    .unwrap();
    drop(db);
    let clock = std::sync::Arc::new(varia_realm::ManualClock::new(T0));
    let mut s = Service::open(Box::new(varia_realm::SqliteStore::open(&path, false).unwrap()), clock).unwrap();
    let b = s.join("bob").unwrap();
    // Bob's join elected: alice and bob tie, and with no incumbent the earliest joiner wins.
    assert_eq!(mayor_of(&mut s, &b.token, "Caissa").as_deref(), Some("alice"));
    s.advance(true).unwrap();
    assert_eq!(mayor_of(&mut s, &b.token, "Caissa").as_deref(), Some("alice"));
    let db = rusqlite::Connection::open(&path).unwrap();
    let v: i64 = db.query_row("SELECT version FROM schema_version", [], |r| r.get(0)).unwrap();
    assert_eq!(v, varia_realm::store::SCHEMA_VERSION);
    assert_eq!(v, 8);
}
