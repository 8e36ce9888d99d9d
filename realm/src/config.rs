//! A realm's config file (TOML), read by `varia realm new`: which variant, how long a
//! round is (CA-02: the three realms run on 6, 10 and 24 hours), the seed of its
//! randomness, the size of a sector (A-CA1), the cities and their roads (CA-19), and
//! whether new empires may lie outside the cities (`join_ground`), and whether a player
//! coming back keeps their old vault (`rejoin_keeps_vault`). Unknown keys and bad values are refused with the file's name.

use serde::Deserialize;

use crate::error::Error;

/// The round lengths a realm may have (CA-02, A-CA17 `round_hours`).
pub const ROUND_HOURS: [i64; 3] = [6, 10, 24];

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RealmConfig {
    /// For people: the realm's name.
    pub name: String,
    /// The variant, by name or folder (a world of boards).
    #[serde(default = "caissan")]
    pub variant: String,
    /// Hours per round: 6, 10 or 24. Deadlines fall at UTC multiples of it (A-CA17).
    pub round_hours: i64,
    /// Seeds the bots and every random choice of the realm, round by round.
    #[serde(default)]
    pub seed: u64,
    /// A sector is a square of this many boards a side (A-CA1), anchored at board
    /// [0, 0]: board [bx, by] is in sector [⌊bx/n⌋, ⌊by/n⌋]. Sector chat (CA-24).
    #[serde(default = "sector_boards")]
    pub sector_boards: i64,
    /// The realm's cities (A-CA1: a configured cluster of boards; CA-19: separated by
    /// empty ground), each a rectangle of boards.
    #[serde(default)]
    pub cities: Vec<CityConfig>,
    /// Roads between cities (CA-19), by name.
    #[serde(default)]
    pub roads: Vec<RoadConfig>,
    /// Whether a new empire may lie on the open ground outside the cities. A joining
    /// player's three boards lie in one region: the first city, in config order, with
    /// room for them, else the ground; with `false` a join that finds every city full
    /// is refused (needs at least one city).
    #[serde(default = "yes")]
    pub join_ground: bool,
    /// Whether a player who comes back after losing their empire (`Service::rejoin`)
    /// keeps what was left in their vault. By default (`false`) the new empire starts
    /// like any new one, with an empty vault (CA-16 keeps a vault through elimination,
    /// CA-17; this decides what a new start brings).
    #[serde(default)]
    pub rejoin_keeps_vault: bool,
}

/// A city: `boards = [[x0, y0], [x1, y1]]`, the lower-left and upper-right boards of
/// its rectangle, both included.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct CityConfig {
    pub name: String,
    pub boards: [[i32; 2]; 2],
}

impl CityConfig {
    /// Whether this city and `other`, each grown by one board, overlap: they touch.
    fn touches(&self, other: &CityConfig) -> bool {
        let [[ax0, ay0], [ax1, ay1]] = self.boards;
        let [[bx0, by0], [bx1, by1]] = other.boards;
        let (ax0, ay0, ax1, ay1) = (i64::from(ax0), i64::from(ay0), i64::from(ax1), i64::from(ay1));
        let (bx0, by0, bx1, by1) = (i64::from(bx0), i64::from(by0), i64::from(bx1), i64::from(by1));
        ax0 - 1 <= bx1 && bx0 <= ax1 + 1 && ay0 - 1 <= by1 && by0 <= ay1 + 1
    }
}

/// A road: `between = ["A", "B"]`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RoadConfig {
    pub between: [String; 2],
}

/// At most this many cities in a realm.
pub const MAX_CITIES: usize = 1000;

/// Whether `name` may name a city: 1 to 40 letters, digits, spaces, `-`, `_` or `'`,
/// not starting or ending with a space.
pub fn is_city_name(name: &str) -> bool {
    let n = name.chars().count();
    (1..=40).contains(&n)
        && name.trim() == name
        && name.chars().all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '\''))
}

/// The largest sector side a realm may have.
pub const MAX_SECTOR_BOARDS: i64 = 10_000;

fn sector_boards() -> i64 {
    10
}

fn yes() -> bool {
    true
}

fn caissan() -> String {
    "caissan".into()
}

impl RealmConfig {
    pub fn parse(text: &str, path: &str) -> Result<RealmConfig, Error> {
        let c: RealmConfig =
            toml::from_str(text).map_err(|e| Error::Config { path: path.to_string(), message: e.to_string() })?;
        if !ROUND_HOURS.contains(&c.round_hours) {
            return Err(Error::Config {
                path: path.to_string(),
                message: format!("round_hours = {}: a realm's rounds last 6, 10 or 24 hours", c.round_hours),
            });
        }
        if !(1..=MAX_SECTOR_BOARDS).contains(&c.sector_boards) {
            return Err(Error::Config {
                path: path.to_string(),
                message: format!(
                    "sector_boards = {}: a sector is 1 to {MAX_SECTOR_BOARDS} boards a side",
                    c.sector_boards
                ),
            });
        }
        let bad = |message: String| Err(Error::Config { path: path.to_string(), message });
        if c.cities.len() > MAX_CITIES {
            return bad(format!("{} cities: a realm has at most {MAX_CITIES}", c.cities.len()));
        }
        let mut problems = Vec::new();
        for (i, city) in c.cities.iter().enumerate() {
            let [[x0, y0], [x1, y1]] = city.boards;
            if !is_city_name(&city.name) {
                problems.push(format!(
                    "cities[{i}]: `{}` is not a city name (1 to 40 letters, digits, spaces, - _ ')",
                    city.name.chars().take(40).collect::<String>()
                ));
            }
            if x0 > x1 || y0 > y1 {
                problems.push(format!(
                    "cities[{i}] `{}`: boards = [[x0, y0], [x1, y1]] needs x0 ≤ x1 and y0 ≤ y1",
                    city.name
                ));
            }
            for (j, other) in c.cities[..i].iter().enumerate() {
                if other.name == city.name {
                    problems.push(format!("cities[{i}]: `{}` is also the name of cities[{j}]", city.name));
                }
                if city.touches(other) {
                    problems.push(format!(
                        "cities[{i}] `{}` touches cities[{j}] `{}`: cities are separated by empty ground (CA-19), at least one board",
                        city.name, other.name
                    ));
                }
            }
        }
        if !c.join_ground && c.cities.is_empty() {
            problems.push(
                "join_ground = false with no [[cities]]: nobody could ever join (a new empire lies in a city or, \
                 with join_ground = true, on the open ground)"
                    .to_string(),
            );
        }
        for (i, road) in c.roads.iter().enumerate() {
            let [a, b] = &road.between;
            for end in [a, b] {
                if !c.cities.iter().any(|city| &city.name == end) {
                    problems
                        .push(format!("roads[{i}]: no city is called `{}`", end.chars().take(40).collect::<String>()));
                }
            }
            if a == b {
                problems.push(format!("roads[{i}]: a road joins two different cities"));
            }
            if c.roads[..i].iter().any(|r| {
                let [c0, c1] = &r.between;
                (c0 == a && c1 == b) || (c0 == b && c1 == a)
            }) {
                problems.push(format!("roads[{i}]: `{a}` and `{b}` already have a road"));
            }
        }
        if !problems.is_empty() {
            return bad(problems.join("; "));
        }
        if c.name.trim().is_empty() || c.name.len() > 64 {
            return Err(Error::Config { path: path.to_string(), message: "name: 1 to 64 characters".into() });
        }
        Ok(c)
    }
}

/// The first deadline strictly after `t` for rounds of `hours` (UTC multiples).
pub fn next_deadline(t: i64, hours: i64) -> i64 {
    let period = hours * 3600;
    t.div_euclid(period).saturating_add(1).saturating_mul(period)
}
