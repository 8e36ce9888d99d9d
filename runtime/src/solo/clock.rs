//! The play clock of a solo board: wall-clock readings in, time played out, pauses
//! excluded (CH-17: pausing a single-player forge stops the clock; A-CH11: a duel's
//! clock cannot be paused when `[duel] pause = false`).
//!
//! Time is an input: whoever drives the board (a terminal, a fixture, a server) reads
//! its own clock and hands the readings here, in milliseconds from any origin; the
//! result goes to [`SoloGame::set_elapsed`]. A reading earlier than the last one is
//! refused, so a clock that jumps back cannot give time away.

use thiserror::Error;

use super::{SoloGame, TimeRule};

/// A clock reading or control that was refused; the stopwatch is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClockError {
    #[error("the clock reading {now} ms comes before the last one ({last} ms): time cannot run backwards")]
    Backwards { last: u64, now: u64 },
    #[error("this board cannot be paused (a duel's countdown runs on: [duel] pause = false)")]
    NoPause,
    #[error("the clock is already paused")]
    AlreadyPaused,
    #[error("the clock is not paused")]
    NotPaused,
}

/// Time played on one board, from wall-clock readings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopwatch {
    /// The reading when the board was shown.
    start: u64,
    /// The latest reading.
    last: u64,
    /// The reading at which the current pause began.
    paused_at: Option<u64>,
    /// Time spent in pauses that have ended.
    paused_total: u64,
    can_pause: bool,
}

impl Stopwatch {
    /// A clock that starts at the reading `at`.
    pub fn start(at: u64, can_pause: bool) -> Stopwatch {
        Stopwatch { start: at, last: at, paused_at: None, paused_total: 0, can_pause }
    }

    /// A clock for `game`, starting at `at`: pausable unless the game is a duel whose
    /// `[duel]` says `pause = false`.
    pub fn for_game(game: &SoloGame, at: u64) -> Stopwatch {
        let can_pause = match game.time_rule() {
            TimeRule::Countdown(d) => d.pause,
            _ => true,
        };
        Stopwatch::start(at, can_pause)
    }

    pub fn can_pause(&self) -> bool {
        self.can_pause
    }

    pub fn is_paused(&self) -> bool {
        self.paused_at.is_some()
    }

    fn advance(&mut self, now: u64) -> Result<(), ClockError> {
        if now < self.last {
            return Err(ClockError::Backwards { last: self.last, now });
        }
        self.last = now;
        Ok(())
    }

    /// The time played at the reading `now` (pauses excluded).
    pub fn elapsed(&mut self, now: u64) -> Result<u64, ClockError> {
        self.advance(now)?;
        Ok(self.played())
    }

    /// The time played at the latest reading.
    pub fn played(&self) -> u64 {
        let until = self.paused_at.unwrap_or(self.last);
        until.saturating_sub(self.start).saturating_sub(self.paused_total)
    }

    /// Stops the clock at the reading `now`; returns the time played.
    pub fn pause(&mut self, now: u64) -> Result<u64, ClockError> {
        if !self.can_pause {
            return Err(ClockError::NoPause);
        }
        if self.paused_at.is_some() {
            return Err(ClockError::AlreadyPaused);
        }
        self.advance(now)?;
        self.paused_at = Some(now);
        Ok(self.played())
    }

    /// Starts the clock again at the reading `now`; returns the time played.
    pub fn resume(&mut self, now: u64) -> Result<u64, ClockError> {
        let Some(at) = self.paused_at else {
            return Err(ClockError::NotPaused);
        };
        self.advance(now)?;
        self.paused_total = self.paused_total.saturating_add(now - at);
        self.paused_at = None;
        Ok(self.played())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pauses_are_left_out_of_the_time_played() {
        let mut w = Stopwatch::start(1_000, true);
        assert_eq!(w.elapsed(13_900), Ok(12_900));
        assert_eq!(w.pause(14_000), Ok(13_000));
        // A minute away from the board costs nothing.
        assert_eq!(w.elapsed(74_000), Ok(13_000));
        assert_eq!(w.resume(74_000), Ok(13_000));
        assert_eq!(w.elapsed(80_000), Ok(19_000));
        // A second pause of 2 s: 90 - 1 - 60 - 2 = 27 s played.
        w.pause(81_000).unwrap();
        w.resume(83_000).unwrap();
        assert_eq!(w.elapsed(90_000), Ok(27_000));
    }

    #[test]
    fn refusals_change_nothing() {
        let mut w = Stopwatch::start(0, true);
        w.elapsed(5_000).unwrap();
        assert_eq!(w.elapsed(4_000), Err(ClockError::Backwards { last: 5_000, now: 4_000 }));
        assert_eq!(w.resume(6_000), Err(ClockError::NotPaused));
        w.pause(6_000).unwrap();
        assert_eq!(w.pause(7_000), Err(ClockError::AlreadyPaused));
        assert_eq!(w.resume(5_500), Err(ClockError::Backwards { last: 6_000, now: 5_500 }));
        assert!(w.is_paused());
        assert_eq!(w.played(), 6_000);
        let mut duel = Stopwatch::start(0, false);
        assert_eq!(duel.pause(1_000), Err(ClockError::NoPause));
        assert_eq!(duel.elapsed(2_000), Ok(2_000));
        // Readings near the end of the range saturate instead of wrapping.
        let mut w = Stopwatch::start(10, true);
        assert_eq!(w.elapsed(u64::MAX), Ok(u64::MAX - 10));
    }
}
