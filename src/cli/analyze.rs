//! `perftlab analyze`: validity, side to move, check, pins, legal moves (UCI and SAN) and the game state
//! (FIDE 5.1.1, 5.2, 9.2, 9.3, 9.6) of a position, optionally after `--moves` (UCI or SAN).

use super::PositionArgs;
use crate::analyze::{self, Analysis};
use crate::error::{Error, Result};
use crate::types::Color;
use crate::validate::Checked;
use clap::Args;

/// Arguments of `perftlab analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Moves played from the position first, UCI or SAN (the history for the repetition rules).
    #[arg(long, num_args = 1..)]
    moves: Vec<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Also draw the position as a self-contained SVG board (checkers, pins, the last move of `--moves`).
    #[arg(long, value_name = "FILE.svg")]
    svg: Option<std::path::PathBuf>,
}

fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

fn print_text(a: &Analysis) {
    println!("fen:          {}", a.fen);
    println!("valid:        {}", yes(a.valid));
    for e in &a.errors {
        println!("error:        {e}");
    }
    for w in &a.warnings {
        println!("warning:      {w}");
    }
    println!("side to move: {}", a.side_to_move);
    if !a.valid {
        return;
    }
    if a.in_check {
        println!("in check:     yes, by {}", a.checkers.join(" "));
    } else {
        println!("in check:     no");
    }
    println!("pinned:       {}", a.pinned.join(" "));
    println!("legal moves:  {}", a.legal_moves.len());
    for (u, s) in a.legal_moves.iter().zip(&a.san) {
        println!("  {u:<6} {s}");
    }
    let outcome = a.outcome.map_or("none (game goes on)".to_string(), |o| {
        serde_json::to_value(o)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    });
    println!("outcome:      {outcome}");
    let claims: Vec<String> = a
        .claimable
        .iter()
        .filter_map(|c| serde_json::to_value(c).ok()?.as_str().map(str::to_string))
        .collect();
    println!("claimable:    {}", claims.join(" "));
    println!("repetitions:  {}", a.repetitions);
    if let Some(r) = &a.reachability {
        let detail = match (&r.game, &r.proof) {
            (Some(g), _) if g.is_empty() => " (the game's initial position itself)".to_string(),
            (Some(g), _) => format!(" by {}", g.join(" ")),
            (None, Some(p)) => format!(": {p}"),
            (None, None) => String::new(),
        };
        println!("reachability: {}{detail}", r.result);
    }
    if let Some(d) = &a.dead_position {
        // FIDE 1.5 / 6.9 (issue 18): each side's verdict with its proof.
        let white_reason = d.winnable.white.reason.as_deref();
        for (side, r) in [("white", &d.winnable.white), ("black", &d.winnable.black)] {
            let detail = match (&r.helpmate, &r.reason) {
                // One proof for both sides (a blocked structure, a fortress) is printed once.
                (None, Some(reason))
                    if side == "black" && Some(reason.as_str()) == white_reason =>
                {
                    "the same proof as for white".to_string()
                }
                (Some(h), _) if h.is_empty() => "the other side is checkmated".to_string(),
                (Some(h), _) => format!("helpmate {}", h.join(" ")),
                (None, Some(reason)) => reason.clone(),
                (None, None) => String::new(),
            };
            println!(
                "{side} can mate: {} ({detail}; {} nodes)",
                r.result, r.nodes
            );
        }
        let dead = match d.dead {
            Some(true) if d.dead_reason.as_deref() == white_reason => {
                "yes (neither side can mate: the proof above)".to_string()
            }
            Some(true) => format!("yes ({})", d.dead_reason.as_deref().unwrap_or("")),
            Some(false) => "no".to_string(),
            None => "undetermined".to_string(),
        };
        println!("dead position: {dead}");
    }
}

pub fn run(a: AnalyzeArgs) -> Result<i32> {
    super::check_output("--svg", a.svg.as_deref())?;
    let root = a.position.setup()?;
    let moves = crate::line::split_moves(&a.moves);
    let chess960 = a.position.chess960_for(&root);
    // An invalid position can be analysed (it is reported as such), but no move can be played from it.
    let history = if moves.is_empty() {
        vec![root]
    } else {
        let start = Checked::new(root)
            .map_err(|e| Error::Usage(format!("--moves: cannot play moves from the {e}")))?;
        let line = super::play_line(&start, &moves)?;
        line.positions
            .into_iter()
            .map(Checked::into_setup)
            .collect()
    };
    let mut analysis = analyze::analyze(&history, chess960);
    // FIDE 1.5 / 6.9 (issue 18): both sides' winnability, default limits (3,000,000 nodes, 1 s per side).
    if let Ok(end) = Checked::new(history.last().expect("not empty").clone()) {
        let report = analyze::dead::dead_report(&end, &Default::default(), chess960)?;
        analyze::add_dead_position(&mut analysis, report);
    }
    if let Some(path) = &a.svg {
        let marks = crate::render::board::Marks {
            last_move: moves.last().and_then(|_| {
                let before = &history[history.len() - 2];
                let legal = crate::reference::legal_moves(before);
                let after = history.last().expect("not empty");
                legal
                    .into_iter()
                    .find(|&m| crate::reference::play(before, m) == *after)
                    .map(|m| m.to_uci(chess960))
            }),
            caption: Some(analysis.fen.clone()),
            ..Default::default()
        };
        // FIDE 1.5 (issue 18): shade the squares the defending side can never reach in a blocked structure.
        let fortress = Checked::new(history.last().expect("not empty").clone())
            .ok()
            .and_then(|end| {
                [Color::White, Color::Black]
                    .into_iter()
                    .find_map(|side| analyze::dead::fortress(&end, side).map(|sq| (side, sq)))
            });
        let svg = crate::render::board::board_svg_shaded(
            history.last().expect("not empty"),
            &marks,
            fortress,
        );
        super::write_file("--svg", path, &svg)?;
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string(&analysis).expect("serializable")
        );
    } else {
        print_text(&analysis);
    }
    Ok(if analysis.valid { 0 } else { 1 })
}
