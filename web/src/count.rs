//! Perft and divide on the fast CPU generator, one root move per call: the page calls [`Counter::step`]
//! until it returns `undefined`, yielding to the browser in between, so it can show progress and nodes/s
//! and cancel (it stops calling). One hash table serves every root move (transpositions between them are
//! merged as in a native run).

use crate::{checked, chess960_for, js_error};
use perftlab::backend::Backend;
use perftlab::fast::CpuBackend;
use perftlab::Checked;
use wasm_bindgen::prelude::*;

/// A perft/divide in progress on the CPU path.
#[wasm_bindgen]
pub struct Counter {
    backend: CpuBackend,
    /// The root moves (UCI, sorted) and the positions after them.
    children: Vec<(String, Checked)>,
    next: usize,
    depth: u32,
    total: u128,
}

#[wasm_bindgen]
impl Counter {
    /// Start counting `fen` to `depth` with a `hash_mb` MiB hash table (0: none). `Err` with the library's
    /// message for a bad FEN, an invalid position or a depth over the limit.
    #[wasm_bindgen(constructor)]
    pub fn new(fen: &str, depth: u32, chess960: bool, hash_mb: usize) -> Result<Counter, JsError> {
        perftlab::limits::check_depth("depth", depth).map_err(js_error)?;
        let pos = checked(fen)?;
        let chess960 = chess960_for(&pos, chess960);
        let backend = CpuBackend::new(hash_mb, None, true).map_err(js_error)?;
        let mut children = Vec::new();
        if depth > 0 {
            for m in pos.legal_moves() {
                children.push((m.to_uci(chess960), pos.play(m).map_err(js_error)?));
            }
            children.sort_by(|a, b| a.0.cmp(&b.0));
        }
        Ok(Counter {
            backend,
            children,
            next: 0,
            depth,
            total: u128::from(depth == 0),
        })
    }

    /// How many root moves there are (0 at depth 0).
    pub fn moves(&self) -> usize {
        self.children.len()
    }

    /// How many root moves are counted.
    pub fn done(&self) -> usize {
        self.next
    }

    /// Count the next root move: `[move, count]` (the count as decimal text), or `undefined` when every
    /// root move is counted.
    pub fn step(&mut self) -> Result<Option<Vec<String>>, JsError> {
        let Some((mv, child)) = self.children.get(self.next) else {
            return Ok(None);
        };
        let n = if self.depth == 1 {
            1
        } else {
            self.backend
                .perft(child, self.depth - 1)
                .map_err(js_error)?
        };
        self.next += 1;
        self.total += n;
        Ok(Some(vec![mv.clone(), n.to_string()]))
    }

    /// The nodes counted so far (the perft total once [`Counter::step`] has returned `undefined`).
    pub fn total(&self) -> String {
        self.total.to_string()
    }
}
