//! Colours, piece roles and pieces (FIDE 2.2).

use std::fmt;
use std::ops::Not;

/// The colour of a side: White moves first (FIDE 1.2).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Color {
    /// The side with the light pieces.
    White = 0,
    /// The side with the dark pieces.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// 0 for White, 1 for Black.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The rank (0-based) of this side's back rank: 0 for White, 7 for Black.
    pub const fn back_rank(self) -> u8 {
        match self {
            Color::White => 0,
            Color::Black => 7,
        }
    }

    /// `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl Not for Color {
    type Output = Color;
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// A piece type without colour (shakmaty's name for it).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Role {
    /// Pawn (FIDE 3.7).
    Pawn = 0,
    /// Knight (FIDE 3.6).
    Knight = 1,
    /// Bishop (FIDE 3.2).
    Bishop = 2,
    /// Rook (FIDE 3.3).
    Rook = 3,
    /// Queen (FIDE 3.4).
    Queen = 4,
    /// King (FIDE 3.8).
    King = 5,
}

impl Role {
    /// `"pawn"`, `"knight"`, … in English, lower case.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Pawn => "pawn",
            Role::Knight => "knight",
            Role::Bishop => "bishop",
            Role::Rook => "rook",
            Role::Queen => "queen",
            Role::King => "king",
        }
    }

    /// All roles, pawn first.
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];

    /// 0 (pawn) … 5 (king).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The lowercase FEN/UCI letter.
    pub const fn char(self) -> char {
        match self {
            Role::Pawn => 'p',
            Role::Knight => 'n',
            Role::Bishop => 'b',
            Role::Rook => 'r',
            Role::Queen => 'q',
            Role::King => 'k',
        }
    }

    /// The role for a FEN letter of either case.
    pub fn from_char(c: char) -> Option<Role> {
        Some(match c.to_ascii_lowercase() {
            'p' => Role::Pawn,
            'n' => Role::Knight,
            'b' => Role::Bishop,
            'r' => Role::Rook,
            'q' => Role::Queen,
            'k' => Role::King,
            _ => return None,
        })
    }
}

/// A coloured piece.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Piece {
    /// Its colour.
    pub color: Color,
    /// Its role.
    pub role: Role,
}

impl Piece {
    /// A piece of `color` and `role`.
    pub const fn new(color: Color, role: Role) -> Piece {
        Piece { color, role }
    }

    /// FEN letter: uppercase for White.
    pub fn char(self) -> char {
        match self.color {
            Color::White => self.role.char().to_ascii_uppercase(),
            Color::Black => self.role.char(),
        }
    }

    /// The piece for a FEN letter.
    pub fn from_char(c: char) -> Option<Piece> {
        let role = Role::from_char(c)?;
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece { color, role })
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}
