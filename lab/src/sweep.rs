//! Sweeps: the same batch for every value of one or more TOML keys (a grid, the last key
//! varying fastest), each point's variant loaded with the `--set` overrides plus the
//! point's values (the runtime's override parser reads and type-checks them). Every point
//! plays the same seeds, so differences between points come from the rules.

use std::sync::Arc;

use varia::Variant;
use varia::variant::Override;

use crate::{Batch, BatchReport, LabError, Report};

/// One swept key and its values: `KEY=A,B,C`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    pub key: String,
    pub values: Vec<String>,
}

impl std::str::FromStr for Axis {
    type Err = LabError;
    fn from_str(text: &str) -> Result<Axis, LabError> {
        let bad = |why| LabError::Sweep { text: text.to_string(), why };
        let (key, values) = text.split_once('=').ok_or_else(|| bad("expected KEY=A,B,C"))?;
        let key = key.trim();
        if key.is_empty() || key.split('.').any(str::is_empty) {
            return Err(bad("the key is empty or has an empty part"));
        }
        let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        if values.iter().any(String::is_empty) {
            return Err(bad("a value is empty"));
        }
        if values.len() > 64 {
            return Err(bad("more than 64 values"));
        }
        Ok(Axis { key: key.to_string(), values })
    }
}

/// Every point of the grid, as `KEY=VALUE` settings, the last axis varying fastest.
pub fn grid(axes: &[Axis]) -> Vec<Vec<String>> {
    let mut points = vec![Vec::new()];
    for a in axes {
        points = points
            .into_iter()
            .flat_map(|p| {
                a.values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push(format!("{}={v}", a.key));
                    q
                })
            })
            .collect();
    }
    points
}

/// At most this many grid points.
pub const MAX_POINTS: usize = 256;

/// A sweep's result at one point.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Point {
    /// The point's settings (`KEY=VALUE`, one per axis).
    pub at: Vec<String>,
    pub batch: BatchReport,
}

/// The variant `name` with the base overrides and a point's settings.
pub fn load(name: &str, base: &[String], at: &[String]) -> Result<Arc<Variant>, LabError> {
    let overrides = base.iter().chain(at).map(|s| s.parse::<Override>()).collect::<Result<Vec<_>, _>>()?;
    Ok(Variant::load_with(name, &overrides)?)
}

/// Runs the batch at every point of the grid (each point checked to load before any
/// game is played, so a bad value costs nothing).
pub fn run(
    name: &str,
    base: &[String],
    axes: &[Axis],
    batch: &Batch,
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Point>, LabError> {
    let points = grid(axes);
    if points.len() > MAX_POINTS {
        return Err(LabError::Sweep {
            text: format!("{} points", points.len()),
            why: "the grid has more than 256 points",
        });
    }
    let variants = points.iter().map(|at| load(name, base, at)).collect::<Result<Vec<_>, _>>()?;
    let mut out = Vec::new();
    for (at, v) in points.into_iter().zip(variants) {
        let (batch, _) = crate::batch(&v, batch, base.iter().chain(&at).cloned().collect(), tick)?;
        out.push(Point { at, batch });
    }
    Ok(out)
}

/// The sweep as a table: a row per point.
pub fn table(points: &[Point]) -> String {
    use std::fmt::Write;
    let w = points.iter().map(|p| p.at.join(" ").chars().count()).max().unwrap_or(5).max(5);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<w$}  {:>6}  {:>15}  {:>15}  {:>15}  {:>8}  {:>14}  {:>7}",
        "point", "games", "white wins", "black wins", "draws", "timeouts", "mean plies", "balance"
    );
    let pct = |r: &crate::metrics::Rate| format!("{:.1}% ±{:.1}", r.value * 100.0, (r.high - r.low) * 50.0);
    for p in points {
        let r: &Report = &p.batch.report;
        let _ = writeln!(
            s,
            "{:<w$}  {:>6}  {:>15}  {:>15}  {:>15}  {:>7.1}%  {:>14}  {:>7.3}",
            p.at.join(" "),
            r.games,
            pct(&r.white_wins),
            pct(&r.black_wins),
            pct(&r.draws),
            r.metrics.timeouts.value * 100.0,
            format!("{:.1} ±{:.1}", r.length.mean, (r.length.high - r.length.low) / 2.0),
            r.metrics.balance
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_read_and_make_a_grid_with_the_last_key_fastest() {
        let a: Axis = "pieces.queen.damage=2,4".parse().unwrap();
        assert_eq!(a.key, "pieces.queen.damage");
        assert_eq!(a.values, ["2", "4"]);
        let b: Axis = "pieces.queen.aoe = 1, 3 ,5".parse().unwrap();
        assert_eq!(b.values, ["1", "3", "5"]);
        let g = grid(&[a, b]);
        assert_eq!(g.len(), 6);
        assert_eq!(g[0], ["pieces.queen.damage=2", "pieces.queen.aoe=1"]);
        assert_eq!(g[1], ["pieces.queen.damage=2", "pieces.queen.aoe=3"]);
        assert_eq!(g[5], ["pieces.queen.damage=4", "pieces.queen.aoe=5"]);
        assert_eq!(grid(&[]), vec![Vec::<String>::new()]);
    }

    #[test]
    fn bad_axes_are_refused_with_the_text() {
        for bad in ["pieces.queen.damage", "=1,2", "a..b=1", "a=1,,2", "a="] {
            let e = bad.parse::<Axis>().unwrap_err();
            assert!(e.to_string().contains(bad), "{e}");
        }
    }
}
