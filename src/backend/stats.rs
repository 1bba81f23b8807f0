//! Detail statistics of the leaves of a perft tree: one list of columns ([`Column`]), the values as an array
//! ([`Stats`]), and the reference classification of one leaf move ([`Stats::add_leaf`]).
//!
//! Every column counts moves of the last ply (the moves that reach the leaves), so each is additive over
//! subtrees: the statistics of a tree are the sum over its root moves, and a position reached by `k` move paths
//! contributes `k` times its subtree's statistics (what the fast backend's hash table and transposition merging
//! rely on).
//!
//! Columns, in output order:
//! - the Chess Programming Wiki's "Perft Results" columns ([`Detail::Cpw`], `--stats`): captures (en passant
//!   included), en passant, castles, promotions (each promotion piece counted), checks (every checking move,
//!   mates included), discovered checks, double checks, checkmates; plus stalemates;
//! - the finer categories of the Grand Chess Tree project ([`Detail::Full`], `--stats full`): every check is
//!   exactly one of *direct* (only the moved piece gives check), *single discovered* (one checker, not the moved
//!   piece), *direct + discovered* (the moved piece and another piece) or *double discovered* (two checkers,
//!   neither the moved piece: only an en-passant capture can do it). Each check category includes its mates, and
//!   the mates are split the same way.
//!
//! "The moved piece" is the piece standing on the move's destination: the promoted piece for a promotion, the
//! rook for castling (FIDE art. 3.8.2: castling is a king move, but only the rook can give check by it).
//!
//! CPW's discovered and double check columns count checks that do not mate (François Labelle's tables, which
//! CPW's start-position rows quote, split checks that are not mates into the four categories; the first
//! discovered mates of the start position occur at ply 8 and make the difference there):
//! `discovered_checks = single_discovered_checks - single_discovered_mates`,
//! `double_checks = direct_discovered_checks + double_discovered_checks - direct_discovered_mates -
//! double_discovered_mates`. `checks` and `checkmates` are the totals of the four categories.

use crate::reference::Mailbox;
use crate::types::{Move, MoveKind};
use std::ops::{Add, AddAssign, Index, IndexMut, Mul};

/// Number of columns.
pub const COLUMNS: usize = 17;

/// One statistics column. The discriminant is the column's index in [`Column::ALL`] and in [`Stats`]' array.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, PartialOrd, Ord)]
pub enum Column {
    /// Captures, en passant included.
    Captures,
    /// En-passant captures.
    EnPassant,
    /// Castling moves.
    Castles,
    /// Promotions (each promotion piece counted).
    Promotions,
    /// Checking moves, mates included.
    Checks,
    /// Single discovered checks that do not mate (CPW's "Discovery Checks").
    DiscoveredChecks,
    /// Checks by two pieces that do not mate (CPW's "Double Checks").
    DoubleChecks,
    /// Checkmating moves.
    Checkmates,
    /// Stalemating moves.
    Stalemates,
    /// Checks by the moved piece alone (mates included).
    DirectChecks,
    /// Checks by one piece other than the moved piece (mates included).
    SingleDiscoveredChecks,
    /// Checks by the moved piece and another piece (mates included).
    DirectDiscoveredChecks,
    /// Checks by two pieces, neither the moved piece (mates included).
    DoubleDiscoveredChecks,
    /// Mates by the moved piece alone.
    DirectMates,
    /// Mates by one piece other than the moved piece.
    SingleDiscoveredMates,
    /// Mates by the moved piece and another piece.
    DirectDiscoveredMates,
    /// Mates by two pieces, neither the moved piece.
    DoubleDiscoveredMates,
}

impl Column {
    /// Every column, in output order (the CPW columns and stalemates first).
    pub const ALL: [Column; COLUMNS] = [
        Column::Captures,
        Column::EnPassant,
        Column::Castles,
        Column::Promotions,
        Column::Checks,
        Column::DiscoveredChecks,
        Column::DoubleChecks,
        Column::Checkmates,
        Column::Stalemates,
        Column::DirectChecks,
        Column::SingleDiscoveredChecks,
        Column::DirectDiscoveredChecks,
        Column::DoubleDiscoveredChecks,
        Column::DirectMates,
        Column::SingleDiscoveredMates,
        Column::DirectDiscoveredMates,
        Column::DoubleDiscoveredMates,
    ];

    /// The columns every other column is derived from (what a leaf classification counts): the four
    /// move kinds, stalemates and the check and mate categories.
    pub const BASE: [Column; BASE_COLUMNS] = [
        Column::Captures,
        Column::EnPassant,
        Column::Castles,
        Column::Promotions,
        Column::Stalemates,
        Column::DirectChecks,
        Column::SingleDiscoveredChecks,
        Column::DirectDiscoveredChecks,
        Column::DoubleDiscoveredChecks,
        Column::DirectMates,
        Column::SingleDiscoveredMates,
        Column::DirectDiscoveredMates,
        Column::DoubleDiscoveredMates,
    ];

    /// Position in [`Column::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The machine name: JSON key, CSV header (`tests/data/cpw-detail.csv` uses the same names).
    pub fn key(self) -> &'static str {
        match self {
            Column::Captures => "captures",
            Column::EnPassant => "en_passant",
            Column::Castles => "castles",
            Column::Promotions => "promotions",
            Column::Checks => "checks",
            Column::DiscoveredChecks => "discovered_checks",
            Column::DoubleChecks => "double_checks",
            Column::Checkmates => "checkmates",
            Column::Stalemates => "stalemates",
            Column::DirectChecks => "direct_checks",
            Column::SingleDiscoveredChecks => "single_discovered_checks",
            Column::DirectDiscoveredChecks => "direct_discovered_checks",
            Column::DoubleDiscoveredChecks => "double_discovered_checks",
            Column::DirectMates => "direct_mates",
            Column::SingleDiscoveredMates => "single_discovered_mates",
            Column::DirectDiscoveredMates => "direct_discovered_mates",
            Column::DoubleDiscoveredMates => "double_discovered_mates",
        }
    }

    /// The column heading of a Markdown table (CPW's headings for its columns).
    pub fn title(self) -> &'static str {
        match self {
            Column::Captures => "Captures",
            Column::EnPassant => "E.p.",
            Column::Castles => "Castles",
            Column::Promotions => "Promotions",
            Column::Checks => "Checks",
            Column::DiscoveredChecks => "Discovery Checks",
            Column::DoubleChecks => "Double Checks",
            Column::Checkmates => "Checkmates",
            Column::Stalemates => "Stalemates",
            Column::DirectChecks => "Direct Checks",
            Column::SingleDiscoveredChecks => "Single Discovered Checks",
            Column::DirectDiscoveredChecks => "Direct Discovered Checks",
            Column::DoubleDiscoveredChecks => "Double Discovered Checks",
            Column::DirectMates => "Direct Mates",
            Column::SingleDiscoveredMates => "Single Discovered Mates",
            Column::DirectDiscoveredMates => "Direct Discovered Mates",
            Column::DoubleDiscoveredMates => "Double Discovered Mates",
        }
    }

    /// The label of `perft --stats`' text output (the key with spaces).
    pub fn label(self) -> String {
        self.key().replace('_', " ")
    }

    /// The column named `key` (as [`Column::key`] writes it).
    pub fn from_key(key: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.key() == key)
    }
}

/// Number of [`Column::BASE`] columns.
pub const BASE_COLUMNS: usize = 13;

/// Which columns a caller wants.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Detail {
    /// The CPW columns and stalemates (`--stats`).
    #[default]
    Cpw,
    /// Every column (`--stats full`).
    Full,
}

impl Detail {
    /// The columns of this level, in output order.
    pub fn columns(self) -> &'static [Column] {
        match self {
            Detail::Cpw => &Column::ALL[..9],
            Detail::Full => &Column::ALL,
        }
    }

    /// Parse `cpw` or `full` (the value of `--stats`).
    ///
    /// # Errors
    /// A message naming the accepted values.
    pub fn parse(s: &str) -> std::result::Result<Detail, String> {
        match s {
            "cpw" => Ok(Detail::Cpw),
            "full" => Ok(Detail::Full),
            _ => Err(format!("'{s}' is not a statistics level (use cpw or full)")),
        }
    }
}

/// How a move gives check; see the module docs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CheckKind {
    /// The moved piece alone.
    Direct,
    /// One piece, not the moved piece.
    SingleDiscovered,
    /// The moved piece and another piece.
    DirectDiscovered,
    /// Two pieces, neither the moved piece.
    DoubleDiscovered,
}

impl CheckKind {
    /// The kind of a check by `checkers` pieces (1 or 2), `by_mover` when the moved piece is one of them;
    /// `None` for no check.
    #[inline(always)]
    pub fn of(checkers: u32, by_mover: bool) -> Option<CheckKind> {
        match (checkers, by_mover) {
            (0, _) => None,
            (1, true) => Some(CheckKind::Direct),
            (1, false) => Some(CheckKind::SingleDiscovered),
            (_, true) => Some(CheckKind::DirectDiscovered),
            (_, false) => Some(CheckKind::DoubleDiscovered),
        }
    }

    /// The check column of this kind.
    #[inline(always)]
    pub fn check_column(self) -> Column {
        match self {
            CheckKind::Direct => Column::DirectChecks,
            CheckKind::SingleDiscovered => Column::SingleDiscoveredChecks,
            CheckKind::DirectDiscovered => Column::DirectDiscoveredChecks,
            CheckKind::DoubleDiscovered => Column::DoubleDiscoveredChecks,
        }
    }

    /// The mate column of this kind.
    #[inline(always)]
    pub fn mate_column(self) -> Column {
        match self {
            CheckKind::Direct => Column::DirectMates,
            CheckKind::SingleDiscovered => Column::SingleDiscoveredMates,
            CheckKind::DirectDiscovered => Column::DirectDiscoveredMates,
            CheckKind::DoubleDiscovered => Column::DoubleDiscoveredMates,
        }
    }
}

/// Leaf statistics: one value per [`Column`], exact to any depth (`u128`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Hash)]
pub struct Stats([u128; COLUMNS]);

impl Stats {
    /// From values in [`Column::ALL`] order.
    pub fn from_array(values: [u128; COLUMNS]) -> Stats {
        Stats(values)
    }

    /// The values in [`Column::ALL`] order.
    pub fn to_array(self) -> [u128; COLUMNS] {
        self.0
    }

    /// From the [`Column::BASE`] counts (in that order), the derived columns computed
    /// ([`Stats::with_totals`]).
    pub fn from_base<T: Into<u128> + Copy>(base: &[T; BASE_COLUMNS]) -> Stats {
        let mut s = Stats::default();
        for (c, &v) in Column::BASE.iter().zip(base) {
            s[*c] = v.into();
        }
        s.with_totals()
    }

    /// The derived columns (checks, discovered checks, double checks, checkmates) recomputed from the check
    /// and mate categories; see the module docs for CPW's convention.
    pub fn with_totals(mut self) -> Stats {
        use Column::*;
        self[Checks] = self[DirectChecks]
            + self[SingleDiscoveredChecks]
            + self[DirectDiscoveredChecks]
            + self[DoubleDiscoveredChecks];
        self[Checkmates] = self[DirectMates]
            + self[SingleDiscoveredMates]
            + self[DirectDiscoveredMates]
            + self[DoubleDiscoveredMates];
        self[DiscoveredChecks] = self[SingleDiscoveredChecks] - self[SingleDiscoveredMates];
        self[DoubleChecks] = self[DirectDiscoveredChecks] + self[DoubleDiscoveredChecks]
            - self[DirectDiscoveredMates]
            - self[DoubleDiscoveredMates];
        self
    }

    /// `(column, value)` for the columns of `detail`, in output order.
    pub fn columns(&self, detail: Detail) -> impl Iterator<Item = (Column, u128)> + '_ {
        detail.columns().iter().map(move |&c| (c, self[c]))
    }

    /// A JSON object of the columns of `detail` (keys as [`Column::key`]).
    pub fn to_json(&self, detail: Detail) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for (c, v) in self.columns(detail) {
            m.insert(c.key().to_string(), serde_json::json!(v));
        }
        serde_json::Value::Object(m)
    }

    /// Only the columns of `detail` kept (the others zero), so that backends computing more columns than
    /// asked compare equal with those computing only the asked ones.
    pub fn only(self, detail: Detail) -> Stats {
        let mut s = Stats::default();
        for &c in detail.columns() {
            s[c] = self[c];
        }
        s
    }

    /// Account one leaf move `m` played from `pos` (reference generator), base columns only: call
    /// [`Stats::with_totals`] after the last leaf.
    pub fn add_leaf(&mut self, pos: &Mailbox, m: Move) {
        use Column::*;
        let capture = m.kind() == MoveKind::EnPassant
            || (m.kind() != MoveKind::Castling && pos.piece_at(m.to()).is_some());
        self[Captures] += capture as u128;
        self[EnPassant] += (m.kind() == MoveKind::EnPassant) as u128;
        self[Castles] += (m.kind() == MoveKind::Castling) as u128;
        self[Promotions] += (m.kind() == MoveKind::Promotion) as u128;
        let next = pos.play(m);
        let checkers = next.checkers();
        let mover = if m.kind() == MoveKind::Castling {
            m.castling_rook_target()
        } else {
            m.to()
        };
        let kind = CheckKind::of(checkers.len() as u32, checkers.contains(&mover));
        let no_moves = next.legal_moves().is_empty();
        match kind {
            Some(k) => {
                self[k.check_column()] += 1;
                self[k.mate_column()] += no_moves as u128;
            }
            None => self[Stalemates] += no_moves as u128,
        }
    }
}

impl Index<Column> for Stats {
    type Output = u128;
    #[inline(always)]
    fn index(&self, c: Column) -> &u128 {
        &self.0[c as usize]
    }
}

impl IndexMut<Column> for Stats {
    #[inline(always)]
    fn index_mut(&mut self, c: Column) -> &mut u128 {
        &mut self.0[c as usize]
    }
}

impl AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        for (a, b) in self.0.iter_mut().zip(o.0) {
            *a += b;
        }
    }
}

impl Add for Stats {
    type Output = Stats;
    fn add(mut self, o: Stats) -> Stats {
        self += o;
        self
    }
}

/// Statistics of a subtree reached by `k` move paths: each column times `k`.
impl Mul<u128> for Stats {
    type Output = Stats;
    fn mul(mut self, k: u128) -> Stats {
        for a in &mut self.0 {
            *a *= k;
        }
        self
    }
}

impl std::iter::Sum for Stats {
    fn sum<I: Iterator<Item = Stats>>(iter: I) -> Stats {
        iter.fold(Stats::default(), Add::add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_listed_once_in_index_order() {
        for (i, c) in Column::ALL.iter().enumerate() {
            assert_eq!(c.index(), i);
            assert_eq!(Column::from_key(c.key()), Some(*c));
        }
        let mut keys: Vec<_> = Column::ALL.iter().map(|c| c.key()).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), COLUMNS);
        assert_eq!(Detail::Cpw.columns().last(), Some(&Column::Stalemates));
    }

    #[test]
    fn totals_follow_the_categories() {
        // Checks 1000, 1100, 1200, 1300; mates 10, 20, 30, 40.
        let base: [u64; BASE_COLUMNS] = [5, 6, 7, 8, 9, 1000, 1100, 1200, 1300, 10, 20, 30, 40];
        let s = Stats::from_base(&base);
        use Column::*;
        assert_eq!(s[Checks], 4600);
        assert_eq!(s[Checkmates], 100);
        assert_eq!(s[DiscoveredChecks], 1100 - 20);
        assert_eq!(s[DoubleChecks], 1200 + 1300 - 30 - 40);
        assert_eq!(s[Stalemates], 9);
        let doubled = s * 2;
        assert_eq!(doubled, s + s);
        assert_eq!(Stats::from_array(s.to_array()), s);
        assert_eq!(s.only(Detail::Cpw)[DirectChecks], 0);
    }
}
